package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
/**
 * The GpuPacking baseline of the FGD paper: prefer, in order, a share on a GPU already in use (the fuller the
 * better), then free GPUs on a node already in use (the fewer the better), then an empty node (the smaller the
 * better). CPU-only tasks get no preference.
 */
final class GpuPackingPolicy extends ScoredPolicy {
    @Override
    Choice score(WorkloadTask pod, NodeRoom n) {
        if (pod.numGpu() == 0) return new Choice(0, 0, new int[0]);
        int free = n.fullyFreeGpus();
        if (free == n.gpuLeft.length) return new Choice(Math.max(33 - free, free), 0, placeOn(pod, n));
        if (!pod.sharesGpu()) return new Choice(Math.max(50 - pod.numGpu(), 33), 0, wholeGpus(pod, n));
        int gpu = BestFitPolicy.fullestGpuWithRoom(pod, n);
        if (n.gpuLeft[gpu] == WorkloadTask.MILLI) return new Choice(49, 0, new int[] {gpu});
        return new Choice(Math.max(100 - n.gpuLeft[gpu] * 100 / WorkloadTask.MILLI / 10, 50), 0, new int[] {gpu});
    }

    private static int[] placeOn(WorkloadTask pod, NodeRoom n) {
        return pod.sharesGpu() ? new int[] {BestFitPolicy.fullestGpuWithRoom(pod, n)} : wholeGpus(pod, n);
    }
}
