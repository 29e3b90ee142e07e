package dev.horizon.service.planning;

import dev.horizon.api.JobSpec;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.jobs.JobRow;

/** How long the planner expects a job to run: one rule for the plan and for what /api/v1/plan shows of it. */
final class JobEstimates {
    /** No job is planned shorter than a minute, whatever its estimate says. */
    static final long MIN_SECONDS = 60;
    private final DurationEstimator estimator;

    JobEstimates(DurationEstimator estimator) {
        this.estimator = estimator;
    }

    /** A whole run: the user's own estimate, else what the team's recent runs of the class took. */
    long whole(JobRow j, JobSpec spec) {
        return Math.max(MIN_SECONDS, estimate(j, spec));
    }

    /** What is left at now of a run that started at the job's startedAt. */
    long left(JobRow j, JobSpec spec, long now) {
        return DurationEstimator.remaining(estimate(j, spec), now - j.startedAt(), MIN_SECONDS);
    }

    private long estimate(JobRow j, JobSpec spec) {
        return estimator.estimate(j.team(), j.jobClass(), spec.durationEstimateSeconds());
    }
}
