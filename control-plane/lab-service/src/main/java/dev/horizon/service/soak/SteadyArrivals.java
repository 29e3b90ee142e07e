package dev.horizon.service.soak;

import dev.horizon.api.GpuShape;
import dev.horizon.api.JobSpec;
import dev.horizon.bench.Progress;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.JobSubmissions;
import dev.horizon.service.planning.Planner;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The soak's measurement: a steady stream of arrivals, one every 86,400 / jobs-per-day seconds of the service's clock,
 * submitted through the API's own path; running jobs end (the agents' outcome path) when their true duration has passed;
 * the inference service reports its demand every step; and after each arrival one plan of the real loop (load, decide,
 * commit, store the snapshot), timed on the wall clock. The first plans warm the cluster up and are not counted. At the
 * end every job still active is cancelled, so the store holds only finished work.
 */
@ApplicationScoped
class SteadyArrivals {
    private static final List<String> PHASES = List.of("load", "decide", "commit");

    @Inject
    ServiceClock clock;
    @Inject
    JobSubmissions submissions;
    @Inject
    JobStore jobs;
    @Inject
    InferenceStore inference;
    @Inject
    Planner planner;
    @Inject
    MeterRegistry registry;

    /**
     * The measured plans' loop times in milliseconds, where the run ended, and the mean milliseconds of each phase of the
     * loop over the measured plans (horizon_plan_loop_seconds: load, decide, commit).
     */
    record Measured(List<Double> loopMillis, long endedAt, Map<String, Double> phaseMeanMillis) {
    }

    private double phaseMillis(String phase) {
        Timer t = registry.find("horizon_plan_loop").tag("phase", phase).timer();
        return t == null ? 0 : t.totalTime(TimeUnit.MILLISECONDS);
    }

    Measured run(String label, long start, int jobsPerDay, int warmup, int measured, String service, Workload workload, Progress progress) {
        double gap = 86_400.0 / jobsPerDay;
        long stepSeconds = 86_400 / inference.stepsPerDay();
        Map<String, Long> trueSeconds = new HashMap<>();
        List<Double> millis = new ArrayList<>();
        long reportedStep = start / stepSeconds;
        long now = start;
        Map<String, Double> phasesBefore = new HashMap<>();
        for (int k = 0; k < warmup + measured; k++) {
            if (k == warmup) PHASES.forEach(p -> phasesBefore.put(p, phaseMillis(p)));
            now = start + Math.round(k * gap);
            clock.advanceTo(now * 1000);
            for (JobRow j : jobs.active()) {
                Long t = trueSeconds.get(j.id());
                if (j.state() == JobState.RUNNING && t != null && j.startedAt() + t <= now) submissions.outcome(j, JobState.SUCCEEDED);
            }
            for (; reportedStep < now / stepSeconds; reportedStep++) {
                inference.report(service, List.of(HistoryFill.demand(reportedStep * stepSeconds)), null);
            }
            Workload.Arrival a = workload.next();
            JobSpec spec = new JobSpec("soak-" + k, a.team(), a.jobClass(), null, 1, null, GpuShape.wholeGpus(a.gpus()), null, null, a.estimateSeconds(),
                    null, null);
            trueSeconds.put(submissions.submit(spec).id(), a.trueSeconds());
            long t0 = System.nanoTime();
            planner.planNow();
            if (k >= warmup) millis.add((System.nanoTime() - t0) / 1e6);
            progress.show(label, (k + 1.0) / (warmup + measured));
        }
        Map<String, Double> phases = new LinkedHashMap<>();
        PHASES.forEach(p -> phases.put(p, Math.round(10 * (phaseMillis(p) - phasesBefore.get(p)) / measured) / 10.0));
        for (JobRow j : jobs.active()) jobs.finish(j.id(), JobState.CANCELLED, now);
        planner.planNow();
        return new Measured(millis, now, phases);
    }
}
