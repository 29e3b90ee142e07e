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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The planner's Prometheus metrics, named as the design names them everywhere (simulator, service, dashboard). The whole
 * loop is timed per phase (load: reading the store and building the moment; decide: the policy and turning its decision
 * into writes; commit: the fenced transaction). Latencies are histograms over {@link #LATENCY_BUCKETS}: Prometheus
 * computes the percentiles (histogram_quantile) across replicas and over any window, not the service.
 */
@Singleton
public class PlannerMetrics {
    /** Bucket bounds of every planning latency histogram, from a small plan's milliseconds to a stalled one. */
    public static final Duration[] LATENCY_BUCKETS = Stream.of(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000)
            .map(Duration::ofMillis).toArray(Duration[]::new);

    @Inject
    MeterRegistry registry;

    private final AtomicReference<Double> utilization = new AtomicReference<>(0.0);
    private final AtomicLong lastPlanAt = new AtomicLong();
    private final Map<Tags, AtomicInteger> queueDepth = new ConcurrentHashMap<>();
    private final Map<String, Timer> loop = new HashMap<>();
    private Timer decisionLatency;
    private Counter preemptions;

    @PostConstruct
    void register() {
        Gauge.builder("horizon_utilization", utilization, AtomicReference::get)
                .description("GPUs allocated to running work / GPUs in the cluster, as of the last plan").register(registry);
        decisionLatency = Timer.builder("horizon_decision_latency").description("time the policy took to decide one plan")
                .serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
        // the newest plan this replica made; max over replicas is the cluster's newest, so a planner that stalls shows
        Gauge.builder("horizon_last_plan_timestamp_seconds", lastPlanAt, AtomicLong::get)
                .description("when this replica last committed a plan (epoch seconds; 0 if it never led)").register(registry);
        preemptions = Counter.builder("horizon_preemptions").description("running jobs taken off their GPUs by a plan").register(registry);
        for (String phase : List.of("load", "decide", "commit")) {
            loop.put(phase, Timer.builder("horizon_plan_loop").tag("phase", phase)
                    .description("time one plan spent in each phase of the loop: load (store to moment), decide (policy and writes), commit (fenced transaction)")
                    .serviceLevelObjectives(LATENCY_BUCKETS).register(registry));
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
        lastPlanAt.set(plan.now());
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
