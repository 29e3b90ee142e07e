package dev.horizon.allocator;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A job holding GPUs. {@code fill} marks work started on GPUs lent from the inference reservation:
 * it is never protected and is the first to go when inference takes its GPUs back.
 */
public record RunningJob(String id, String team, JobClass jobClass, double weight, int gpus, long arrivalSeconds,
                         long startSeconds, long estimatedEndSeconds, Contract contract, Placement placement, boolean fill) {

    /** True while the contract's minimum runtime protects the job from preemption. */
    public boolean protectedAt(long now) {
        return !fill && now < startSeconds + contract.minRuntimeSeconds();
    }

    /** GPUs held, a slice counted by its size (see {@link PendingJob#gpuFraction()}). */
    public double gpuFraction() {
        return placement.shared() ? placement.gpuFraction() : gpus;
    }
}
