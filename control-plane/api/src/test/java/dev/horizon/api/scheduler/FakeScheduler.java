package dev.horizon.api.scheduler;

import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.scheduler.SchedulerJob.State;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A control plane the test drives: it plans, preempts, ends and explains when told to. Adapters' tests use it from the test-jar. */
public final class FakeScheduler implements SchedulerClient {
    public final Map<String, JobSpec> submitted = new LinkedHashMap<>();
    public final List<String> cancelled = new ArrayList<>();
    public final Map<String, Boolean> finished = new HashMap<>();
    /** Each explanation asked for, as "id" or "id with alternatives". */
    public final List<String> explanationsAsked = new ArrayList<>();
    private final Map<String, SchedulerJob> jobs = new HashMap<>();
    /** Where set, what submit throws instead of queueing the job (a control plane that refuses it or does not answer). */
    public SchedulerException submitFails;
    private Explanation explanation = new Explanation("waiting for the next plan", null, Map.of());

    @Override
    public String submit(JobSpec job) {
        if (submitFails != null) throw submitFails;
        String id = "job-" + (submitted.size() + 1);
        submitted.put(id, job);
        jobs.put(id, new SchedulerJob(id, State.PENDING, null));
        return id;
    }

    @Override
    public SchedulerJob job(String id) {
        return jobs.get(id);
    }

    @Override
    public Explanation explanation(String id, boolean alternatives) {
        explanationsAsked.add(id + (alternatives ? " with alternatives" : ""));
        return explanation;
    }

    @Override
    public void cancel(String id) {
        cancelled.add(id);
        jobs.put(id, new SchedulerJob(id, State.CANCELLED, null));
    }

    @Override
    public void finish(String id, boolean succeeded) {
        finished.put(id, succeeded);
        jobs.put(id, new SchedulerJob(id, succeeded ? State.SUCCEEDED : State.FAILED, null));
    }

    public void explain(Explanation e) {
        explanation = e;
    }

    public void plan(String id, String migProfile, String... nodes) {
        jobs.put(id, new SchedulerJob(id, State.RUNNING, new PlannedPlacement(List.of(nodes), migProfile)));
    }

    /** Runs the job on a placement with its planned devices, as a control plane on Kubernetes reports it. */
    public void plan(String id, PlannedPlacement placement) {
        jobs.put(id, new SchedulerJob(id, State.RUNNING, placement));
    }

    public void preempt(String id) {
        jobs.put(id, new SchedulerJob(id, State.PENDING, null));
    }
}
