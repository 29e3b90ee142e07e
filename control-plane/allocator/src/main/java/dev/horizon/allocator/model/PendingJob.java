package dev.horizon.allocator.model;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A job waiting for GPUs, as planners see it: only the estimate of its remaining work, never the
 * true duration. slice is null for whole-GPU work; for fractional work gpus counts replicas, each
 * taking one slice of one GPU. rules: where its GPUs may be (models, replica width, topology).
 */
public record PendingJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                         long estimatedRemainingSeconds, Contract contract, SliceRequest slice, PlacementRules rules) {
    public PendingJob {
        rules = rules == null ? PlacementRules.ANY : rules;
    }

    public PendingJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                      long estimatedRemainingSeconds, Contract contract, SliceRequest slice) {
        this(id, team, jobClass, weight, gpus, minGpus, arrivalSeconds, estimatedRemainingSeconds, contract, slice,
                slice == null ? PlacementRules.ANY : PlacementRules.ANY.withGpuTypes(slice.gpuTypes()));
    }

    public PendingJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                      long estimatedRemainingSeconds, Contract contract) {
        this(id, team, jobClass, weight, gpus, minGpus, arrivalSeconds, estimatedRemainingSeconds, contract, null);
    }

    /** The same job with another weight (fair share re-weights jobs). */
    public PendingJob withWeight(double newWeight) {
        return new PendingJob(id, team, jobClass, newWeight, gpus, minGpus, arrivalSeconds, estimatedRemainingSeconds, contract, slice, rules);
    }

    /** The same job with other placement rules. */
    public PendingJob withRules(PlacementRules newRules) {
        return new PendingJob(id, team, jobClass, weight, gpus, minGpus, arrivalSeconds, estimatedRemainingSeconds, contract, slice, newRules);
    }

    /** Sizes an elastic job may start with, widest first (see {@link PlacementRules#widths}). */
    public java.util.List<Integer> allowedSizes() {
        return rules.widths(gpus, minGpus);
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
