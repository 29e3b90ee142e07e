package dev.horizon.allocator.model;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A job holding GPUs. {@code fill} marks work started on GPUs lent from the inference reservation:
 * it is never protected and is the first to go when inference takes its GPUs back. rules: where its
 * GPUs may be, which still binds it when it is preempted and placed again.
 */
public record RunningJob(String id, String team, JobClass jobClass, double weight, int gpus, long arrivalSeconds,
                         long startSeconds, long estimatedEndSeconds, Contract contract, Placement placement, boolean fill,
                         PlacementRules rules) {
    public RunningJob {
        rules = rules == null ? PlacementRules.ANY : rules;
    }

    public RunningJob(String id, String team, JobClass jobClass, double weight, int gpus, long arrivalSeconds,
                      long startSeconds, long estimatedEndSeconds, Contract contract, Placement placement, boolean fill) {
        this(id, team, jobClass, weight, gpus, arrivalSeconds, startSeconds, estimatedEndSeconds, contract, placement, fill, PlacementRules.ANY);
    }

    /** The same job with another weight and fill flag (fair share re-weights jobs). */
    public RunningJob reweighted(double newWeight, boolean newFill) {
        return new RunningJob(id, team, jobClass, newWeight, gpus, arrivalSeconds, startSeconds, estimatedEndSeconds, contract, placement,
                newFill, rules);
    }

    /** The same job on another placement (a node pool renumbers nodes). */
    public RunningJob at(Placement newPlacement) {
        return new RunningJob(id, team, jobClass, weight, gpus, arrivalSeconds, startSeconds, estimatedEndSeconds, contract, newPlacement,
                fill, rules);
    }

    /** True while the contract's minimum runtime protects the job from preemption. */
    public boolean protectedAt(long now) {
        return !fill && now < startSeconds + contract.minRuntimeSeconds();
    }

    /** GPUs held, a slice counted by its size (see {@link PendingJob#gpuFraction()}). */
    public double gpuFraction() {
        return placement.shared() ? placement.gpuFraction() : gpus;
    }
}
