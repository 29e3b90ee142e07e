package dev.horizon.service.planning;

import dev.horizon.api.JobSpec;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.jobs.JobRow;

/**
 * How long the planner expects a job to run, as the simulator estimates it: one rule for the plan and for what
 * /api/v1/plan shows of it, on every replica.
 */
final class JobEstimates {
    /** No job is planned shorter than a minute, whatever its estimate says. */
    static final long MIN_SECONDS = 60;
    private final DurationEstimator estimator;

    JobEstimates(DurationEstimator estimator) {
        this.estimator = estimator;
    }

    /** A waiting job's run: its estimate (the user's own, else its team's recent runs of the class) less what earlier runs kept. */
    long waiting(JobRow j, JobSpec spec) {
        return Math.max(MIN_SECONDS, estimate(j, spec) - j.doneGpuSeconds() / Math.max(1, j.gpus()));
    }

    /**
     * A running job's time left at now: the work left of its estimate (less what earlier runs did) spread over the GPUs it
     * holds, then what {@link DurationEstimator#remaining} makes of this run's age.
     */
    long running(JobRow j, JobSpec spec, int holding, long now) {
        long work = estimate(j, spec) * j.gpus() - j.doneGpuSeconds();
        long runEstimate = Math.max(MIN_SECONDS, work / Math.max(1, holding));
        return DurationEstimator.remaining(runEstimate, now - j.startedAt(), MIN_SECONDS);
    }

    private long estimate(JobRow j, JobSpec spec) {
        return estimator.estimate(j.team(), j.jobClass(), spec.durationEstimateSeconds());
    }
}
