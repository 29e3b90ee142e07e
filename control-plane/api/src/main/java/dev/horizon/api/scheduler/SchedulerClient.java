package dev.horizon.api.scheduler;

import dev.horizon.api.JobSpec;

/** What an adapter (Kubeflow, Ray) needs from the control plane; {@link RestSchedulerClient} speaks its REST API. */
public interface SchedulerClient {
    /** Submits a job; returns its id. */
    String submit(JobSpec job);

    /** The job's state and, while it runs, where the plan put it. */
    SchedulerJob job(String id);

    /**
     * Why a job waits, as the control plane explains it; with alternatives, also what change would start it sooner (the
     * control plane re-plans for each, so a caller polling every pending job asks without).
     */
    Explanation explanation(String id, boolean alternatives);

    /** Withdraws a job: its workload was deleted. */
    void cancel(String id);

    /** Reports that a running job's workload ended, so its GPUs go back to the plan. */
    void finish(String id, boolean succeeded);
}
