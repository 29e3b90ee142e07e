package dev.horizon.service.nodes;

import java.util.List;

/**
 * One GPU as its agent reported it (or as the configuration declared it): MIG mode and devices, health, the latest
 * telemetry and the last health event. migMode is null for declared GPUs, whose MIG state nobody knows.
 */
public record Gpu(int index, String uuid, String model, long memoryMiB, String migMode, List<MigDevice> migDevices, String health,
                  Double utilization, Long memoryUsedMiB, List<Process> processes, String lastEvent) {
    /** placementStart and placementSize are the memory slices it occupies, null when unknown. */
    public record MigDevice(String profile, String uuid, Integer placementStart, Integer placementSize) {
    }

    public record Process(long pid, long usedMemoryMiB, String name) {
    }
}
