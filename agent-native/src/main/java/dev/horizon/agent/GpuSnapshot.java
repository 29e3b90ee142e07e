package dev.horizon.agent;

import dev.horizon.nvml.Gpu;
import dev.horizon.nvml.GpuProcess;
import dev.horizon.nvml.MigDevice;
import java.util.List;

/**
 * One GPU as read on one telemetry tick. {@code gpu} is null when the GPU could not be read (lost from the
 * bus); {@code uuid} is then the one it had when last seen.
 */
record GpuSnapshot(int index, String uuid, Gpu gpu, List<GpuProcess> processes, List<MigDevice> migDevices,
                   dev.horizon.agent.v1.Health health, String problem) {
    GpuSnapshot {
        processes = List.copyOf(processes);
        migDevices = List.copyOf(migDevices);
    }

    boolean readable() {
        return gpu != null;
    }
}
