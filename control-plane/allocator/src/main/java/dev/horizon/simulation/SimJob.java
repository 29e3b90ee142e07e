package dev.horizon.simulation;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A batch-like job in a scenario. gpus is its full width; an elastic job may run on as few as
 * minGpus (power-of-two sizes between), with its work (gpus x trueDurationSeconds GPU-seconds)
 * spread over fewer GPUs for longer. trueDurationSeconds is known to the simulator only; planners see
 * userEstimateSeconds (may be null) and what the duration estimator learned from history.
 */
public record SimJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                     long trueDurationSeconds, Long userEstimateSeconds, Contract contract) {
    public SimJob {
        if (minGpus < 1 || minGpus > gpus) throw new IllegalArgumentException(id + ": minGpus must be in [1, gpus]");
    }

    public boolean elastic() {
        return minGpus < gpus;
    }

    /** GPU-seconds of work the job needs. */
    public long work() {
        return gpus * trueDurationSeconds;
    }
}
