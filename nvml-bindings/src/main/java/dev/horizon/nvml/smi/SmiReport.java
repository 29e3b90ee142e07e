package dev.horizon.nvml.smi;

import dev.horizon.nvml.DriverInfo;
import dev.horizon.nvml.GpuReading;
import dev.horizon.nvml.GpuProcess;
import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.NvmlSession;
import dev.horizon.nvml.error.NvmlException;
import java.util.ArrayList;
import java.util.List;

/**
 * What `horizon smi` shows, read through the bindings in one pass. A GPU that cannot be read (lost,
 * ...) keeps its place with the error instead of failing the whole report.
 */
record SmiReport(DriverInfo driver, List<Entry> gpus) {

    /** One GPU: everything read, or the error that stopped it. */
    record Entry(int index, GpuReading gpu, List<MigDevice> migDevices, List<GpuProcess> processes, NvmlException error) {}

    static SmiReport collect(NvmlSession nvml, Integer onlyGpu) {
        int count = nvml.deviceCount();
        if (onlyGpu != null && (onlyGpu < 0 || onlyGpu >= count)) {
            throw new IllegalArgumentException("--gpu " + onlyGpu + " does not exist; this host has GPUs 0.." + (count - 1));
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (onlyGpu != null && i != onlyGpu) continue;
            try {
                GpuReading gpu = nvml.gpu(i);
                entries.add(new Entry(i, gpu, nvml.migDevices(i), nvml.processes(i), null));
            } catch (NvmlException e) {
                entries.add(new Entry(i, null, List.of(), List.of(), e));
            }
        }
        return new SmiReport(nvml.driver(), List.copyOf(entries));
    }
}
