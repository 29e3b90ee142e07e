package dev.horizon.service.nodes;

import java.util.List;

/** One GPU as its agent reported it (or as the configuration declared it), with its MIG devices and health. */
public record Gpu(int index, String uuid, String model, long memoryMiB, List<MigDevice> migDevices, String health, Double utilization,
                  Long memoryUsedMiB) {
    public record MigDevice(String profile, String uuid) {
    }
}
