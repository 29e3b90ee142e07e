package dev.horizon.allocator.moment;

import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * One active job: its shape (gpus is its full width, or replicas for fractional work; minGpus its narrowest elastic
 * width), where its GPUs may be, its contract, what its user said it needs, what it has done so far, and where it runs
 * now (null while it waits).
 *
 * @param priority the value its user or trace gives it; fair share turns it into a weight inside the team's tier
 */
public record ActiveJob(String id, String team, JobClass jobClass, double priority, int gpus, int minGpus, long arrivalSeconds,
                       Long userEstimateSeconds, Contract contract, SliceRequest slice, PlacementRules rules, RunHistory history,
                       Running running) {

    /**
     * What the job did before now: GPU-seconds of work done and kept (replica-seconds for fractional work; a resumable
     * job keeps what it ran minus the checkpoint cost at each preemption, one that cannot resume keeps nothing), how
     * often it started and how often it was preempted, and the most memory one of its whole GPUs held while it ran, as
     * the agents measured it (0: never measured; trace jobs and slices are never measured).
     */
    public record RunHistory(long doneGpuSeconds, int timesStarted, int timesPreempted, long peakGpuMemoryMiB) {
        public static final RunHistory NEW = new RunHistory(0, 0, 0, 0);
    }

    /** Where the job runs now, since when, and whether on lent GPUs (fill: never protected). */
    public record Running(long startSeconds, Placement placement, boolean fill) {
    }

    public ActiveJob {
        if (rules == null) rules = slice == null ? PlacementRules.ANY : PlacementRules.ANY.withGpuTypes(slice.gpuTypes());
        if (history == null) history = RunHistory.NEW;
    }

    public boolean isRunning() {
        return running != null;
    }

    /** GPUs the job asks for when it runs at full width, a slice counted by its size. */
    public double gpuFraction() {
        return slice == null ? gpus : gpus * slice.gpuFraction();
    }
}
