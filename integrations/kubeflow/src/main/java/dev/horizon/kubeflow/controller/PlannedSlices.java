package dev.horizon.kubeflow.controller;

import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.kubeflow.translate.GpuAsk;
import java.util.List;

/**
 * A workload's planned devices handed out to its GPU pod templates in the order the translation counted them: each
 * takes as many as its pods times the devices one pod holds (one for a MIG slice).
 */
final class PlannedSlices {
    private final List<PlannedDevice> devices;
    private int offset;

    PlannedSlices(List<PlannedDevice> devices) {
        this.devices = devices;
    }

    List<PlannedDevice> next(int pods, GpuAsk ask) {
        int count = pods * (ask.migProfile() != null ? 1 : ask.gpus());
        List<PlannedDevice> mine = devices.subList(Math.min(offset, devices.size()), Math.min(offset + count, devices.size()));
        offset += count;
        return mine;
    }
}
