package dev.horizon.agent;

import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.nvml.GpuReading;
import dev.horizon.nvml.GpuProcess;
import dev.horizon.nvml.MemoryInfo;
import dev.horizon.nvml.MigDevice;
import java.util.List;

/**
 * One GPU as read on one telemetry tick. {@code gpu} is null when the GPU could not be read (lost from the
 * bus); {@code uuid} is then the one it had when last seen. {@code problem} says why the GPU is not healthy, and
 * {@code event} is the health event that problem raises once (null: the inventory's health reason is enough).
 */
record GpuSnapshot(int index, String uuid, GpuReading gpu, List<GpuProcess> processes, List<MigDevice> migDevices,
                   dev.horizon.agent.v1.Health health, String problem, HealthEvent.Kind event) {
    private static final long MIB = 1024L * 1024L;

    GpuSnapshot {
        processes = List.copyOf(processes);
        migDevices = List.copyOf(migDevices);
    }

    boolean readable() {
        return gpu != null;
    }

    /**
     * The GPU's memory; where the driver refuses it (a container that sees only the GPU's MIG devices,
     * nvidia-container-toolkit#842) the sum of its MIG devices' memory, which is all this host can use. Null when
     * neither is known.
     */
    MemoryInfo memory() {
        if (gpu == null) return null;
        if (gpu.memory() != null) return gpu.memory();
        if (migDevices.isEmpty()) return null;
        long total = 0, free = 0, used = 0;
        for (MigDevice d : migDevices) {
            total += d.memory().totalBytes();
            free += d.memory().freeBytes();
            used += d.memory().usedBytes();
        }
        return new MemoryInfo(total, null, free, used);
    }

    long memoryTotalMiB() {
        MemoryInfo m = memory();
        return m == null ? 0 : m.totalBytes() / MIB;
    }
}
