package dev.horizon.service.planning;

import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The planner's Prometheus metrics, named as the design names them everywhere (simulator, service, dashboard). The whole
 * loop is timed as a histogram per phase (load: reading the store and building the moment; decide: the policy and
 * turning its decision into writes; commit: the fenced transaction), so percentiles come from Prometheus, not from here.
 */
@Singleton
public class PlannerMetrics {
    @Inject
    MeterRegistry registry;

    private final AtomicReference<Double> utilization = new AtomicReference<>(0.0);
    private final Map<Tags, AtomicInteger> queueDepth = new ConcurrentHashMap<>();
    private final Map<String, Timer> loop = new HashMap<>();
    private Timer decisionLatency;
    private Counter preemptions;

    @PostConstruct
    void register() {
        Gauge.builder("horizon_utilization", utilization, AtomicReference::get)
                .description("GPUs allocated to running work / GPUs in the cluster, as of the last plan").register(registry);
        decisionLatency = Timer.builder("horizon_decision_latency").description("time the policy took to decide one plan")
                .publishPercentiles(0.5, 0.99).register(registry);
        preemptions = Counter.builder("horizon_preemptions").description("running jobs taken off their GPUs by a plan").register(registry);
        for (String phase : List.of("load", "decide", "commit")) {
            loop.put(phase, Timer.builder("horizon_plan_loop").tag("phase", phase)
                    .description("time one plan spent in each phase of the loop: load (store to moment), decide (policy and writes), commit (fenced transaction)")
                    .publishPercentileHistogram().register(registry));
        }
    }

    /** Times one plan's phases, each from the end of the one before. */
    public final class Phases {
        private long mark = System.nanoTime();
        private double decisionMillis;

        void loaded() {
            lap("load");
        }

        void decided(double policyMillis) {
            decisionMillis = policyMillis;
            lap("decide");
        }

        void committed() {
            lap("commit");
            decisionLatency.record(Duration.ofNanos((long) (decisionMillis * 1e6)));
        }

        private void lap(String phase) {
            long t = System.nanoTime();
            loop.get(phase).record(Duration.ofNanos(t - mark));
            mark = t;
        }
    }

    Phases phases() {
        return new Phases();
    }

    void record(Planner.PlanSnapshot plan, List<JobStore.PlanWrite> writes, List<JobRow> active) {
        utilization.set(plan.totalGpus() == 0 ? 0.0 : (double) plan.busyGpus() / plan.totalGpus());
        preemptions.increment(writes.stream().filter(w -> w.before().state() == JobState.RUNNING && w.state() == JobState.PENDING).count());
        // every (class, team) seen keeps its gauge, set to 0 when its queue empties, so a drained queue reads 0 rather than vanishing
        queueDepth.values().forEach(g -> g.set(0));
        Map<String, JobState> after = PlanHistory.statesAfter(active, writes);
        for (JobRow j : active) {
            if (after.get(j.id()) != JobState.PENDING) continue;
            Tags tags = Tags.of("class", j.jobClass().name(), "team", j.team());
            queueDepth.computeIfAbsent(tags, t -> registry.gauge("horizon_queue_depth", t, new AtomicInteger())).incrementAndGet();
        }
    }
}
