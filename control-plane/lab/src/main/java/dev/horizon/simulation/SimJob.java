package dev.horizon.simulation;

import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A batch-like job in a scenario. gpus is its full width; an elastic job may run on as few as
 * minGpus (power-of-two sizes between), with its work (gpus x trueDurationSeconds GPU-seconds)
 * spread over fewer GPUs for longer. trueDurationSeconds is known to the simulator only; planners see
 * userEstimateSeconds (may be null) and what the duration estimator learned from history.
 * slice is null for whole-GPU work; for fractional work gpus counts replicas, one slice each.
 * rules: where its GPUs may be (models, replica width, gang, topology).
 */
public record SimJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                     long trueDurationSeconds, Long userEstimateSeconds, Contract contract, SliceRequest slice, PlacementRules rules) {
    public SimJob {
        if (minGpus < 1 || minGpus > gpus) throw new IllegalArgumentException(id + ": minGpus must be in [1, gpus]");
        if (slice != null && minGpus != gpus) throw new IllegalArgumentException(id + ": fractional work is not elastic");
        if (rules == null) rules = slice == null ? PlacementRules.ANY : PlacementRules.ANY.withGpuTypes(slice.gpuTypes());
        if (rules.perReplica() && (gpus % rules.gpusPerReplica() != 0 || minGpus % rules.gpusPerReplica() != 0)) {
            throw new IllegalArgumentException(id + ": gpus and minGpus must be whole replicas of " + rules.gpusPerReplica() + " GPUs");
        }
    }

    public SimJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                  long trueDurationSeconds, Long userEstimateSeconds, Contract contract, SliceRequest slice) {
        this(id, team, jobClass, weight, gpus, minGpus, arrivalSeconds, trueDurationSeconds, userEstimateSeconds, contract, slice, null);
    }

    public SimJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                  long trueDurationSeconds, Long userEstimateSeconds, Contract contract) {
        this(id, team, jobClass, weight, gpus, minGpus, arrivalSeconds, trueDurationSeconds, userEstimateSeconds, contract, null);
    }

    /** GPUs the job holds when it runs, a slice counted by its size (as quota counts it). */
    public double gpuFraction() {
        return slice == null ? gpus : gpus * slice.gpuFraction();
    }

    /**
     * GPUs the job asked for on that placement, a slice by its size whatever the placement gave it: a policy that cannot
     * share puts a 1g.10gb on a whole GPU, and the job is still credited and charged 1/7. Whole-GPU work: the GPUs it got
     * (an elastic job may run narrower than it asked).
     */
    public double askedOn(Placement placement) {
        return slice == null ? placement.gpuCount() : placement.gpuCount() * slice.gpuFraction();
    }

    /** The same job, arriving at t instead. */
    public SimJob arrivingAt(long t) {
        return new SimJob(id, team, jobClass, weight, gpus, minGpus, t, trueDurationSeconds, userEstimateSeconds, contract, slice, rules);
    }

    public boolean elastic() {
        return minGpus < gpus;
    }

    /** GPU-seconds of work the job needs (replica-seconds for fractional work). */
    public long work() {
        return gpus * trueDurationSeconds;
    }
}
