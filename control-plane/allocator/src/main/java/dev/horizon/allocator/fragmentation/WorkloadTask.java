package dev.horizon.allocator.fragmentation;

import java.util.Set;

/**
 * One task of an openb pod list. gpuMilli is per GPU: a GPU-sharing task asks for one GPU with gpuMilli below 1000
 * (a time-slicing share); a whole-GPU task asks for numGpu GPUs at 1000 each. An empty gpuTypes set accepts any model.
 */
public record WorkloadTask(String name, int cpuMilli, long memoryMiB, int numGpu, int gpuMilli, Set<String> gpuTypes) {
    public static final int MILLI = 1000;

    public boolean sharesGpu() {
        return numGpu == 1 && gpuMilli < MILLI;
    }

    /** GPU demand in milli-GPU, fractions counted. */
    public long totalGpuMilli() {
        return (long) numGpu * gpuMilli;
    }

    public boolean accepts(String model) {
        return gpuTypes.isEmpty() || gpuTypes.contains(model);
    }
}
