package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
/**
 * The BestFit baseline of the FGD paper: the node with the least CPU and GPU left after placement (each normalised by
 * the largest node, 128 cores and 8 GPUs, weighted half and half), on Kubernetes' integer scale; a share takes the
 * fullest GPU with room.
 */
final class BestFitPolicy extends ScoredPolicy {
    private static final double MAX_CPU_MILLI = 128_000;
    private static final double MAX_GPU_MILLI = 8 * WorkloadTask.MILLI;

    @Override
    Choice score(WorkloadTask pod, NodeRoom n) {
        double leftAfter = 0.5 * (n.cpuLeft - pod.cpuMilli()) / MAX_CPU_MILLI + 0.5 * (n.gpuMilliLeft() - pod.totalGpuMilli()) / MAX_GPU_MILLI;
        double score = (long) ((1 - leftAfter) * 100);
        return pod.sharesGpu() ? new Choice(score, 0, new int[] {fullestGpuWithRoom(pod, n)}) : new Choice(score, 0, wholeGpus(pod, n));
    }

    static int fullestGpuWithRoom(WorkloadTask pod, NodeRoom n) {
        int gpu = -1;
        for (int i = 0; i < n.gpuLeft.length; i++) {
            if (n.gpuLeft[i] >= pod.gpuMilli() && (gpu < 0 || n.gpuLeft[i] < n.gpuLeft[gpu])) gpu = i;
        }
        return gpu;
    }
}
