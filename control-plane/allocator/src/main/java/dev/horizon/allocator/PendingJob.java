package dev.horizon.allocator;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A job waiting for GPUs, as planners see it: only the estimate of its remaining work, never the
 * true duration.
 */
public record PendingJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                         long estimatedRemainingSeconds, Contract contract) {
    /** Sizes an elastic job may start with: its full width, then powers of two down to minGpus. */
    public java.util.List<Integer> allowedSizes() {
        java.util.List<Integer> sizes = new java.util.ArrayList<>();
        sizes.add(gpus);
        int below = Integer.bitCount(gpus) == 1 ? gpus / 2 : Integer.highestOneBit(gpus);
        for (int g = below; g >= Math.max(1, minGpus); g /= 2) sizes.add(g);
        return sizes;
    }
}
