package dev.horizon.allocator;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A job waiting for GPUs, as planners see it: only the estimate of its remaining work, never the
 * true duration. slice is null for whole-GPU work; for fractional work gpus counts replicas, each
 * taking one slice of one GPU.
 */
public record PendingJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                         long estimatedRemainingSeconds, Contract contract, SliceRequest slice) {
    public PendingJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                      long estimatedRemainingSeconds, Contract contract) {
        this(id, team, jobClass, weight, gpus, minGpus, arrivalSeconds, estimatedRemainingSeconds, contract, null);
    }

    /** Sizes an elastic job may start with: its full width, then powers of two down to minGpus. */
    public java.util.List<Integer> allowedSizes() {
        java.util.List<Integer> sizes = new java.util.ArrayList<>();
        sizes.add(gpus);
        int below = Integer.bitCount(gpus) == 1 ? gpus / 2 : Integer.highestOneBit(gpus);
        for (int g = below; g >= Math.max(1, minGpus); g /= 2) sizes.add(g);
        return sizes;
    }

    /**
     * GPUs the job holds when it runs, for quota and fair share: whole GPUs as they are; a slice by its size, a MIG
     * instance by its compute slices of 7 (a 1g.10gb on an H100 is 1/7 of a GPU, whatever its memory share) and a
     * time-slicing share by its milli-GPU.
     */
    public double gpuFraction() {
        return slice == null ? gpus : gpus * slice.gpuFraction();
    }
}
