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
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak's measurement: a steady stream of arrivals, one every 86,400 / jobs-per-day seconds of the service's clock,
 * submitted through the API's own path; running jobs end (the agents' outcome path) when their true duration has passed;
 * the inference service reports its demand every step; and after each arrival one plan of the real loop (load, decide,
 * commit, store the snapshot), timed on the wall clock. The first plans warm the cluster up and are not counted. At the
 * end every job still active is cancelled, so the store holds only finished work.
 */
@ApplicationScoped
class SteadyArrivals {
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

    /** Plans warmup + measured times from start; returns the measured plans' loop times in milliseconds and where it ended. */
    record Measured(List<Double> loopMillis, long endedAt) {
    }

    Measured run(String label, long start, int jobsPerDay, int warmup, int measured, String service, Workload workload, Progress progress) {
        double gap = 86_400.0 / jobsPerDay;
        long stepSeconds = 86_400 / inference.stepsPerDay();
        Map<String, Long> trueSeconds = new HashMap<>();
        List<Double> millis = new ArrayList<>();
        long reportedStep = start / stepSeconds;
        long now = start;
        for (int k = 0; k < warmup + measured; k++) {
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
        for (JobRow j : jobs.active()) jobs.finish(j.id(), JobState.CANCELLED, now);
        planner.planNow();
        return new Measured(millis, now);
    }
}
