package dev.horizon.simulation;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.Occupancy;
import dev.horizon.fractional.mig.ReconfigurationPlanner;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.actions.reclaim.Reclaim;
import dev.horizon.fairshare.FairShareLedger;
import dev.horizon.fairshare.FairShareView;
import dev.horizon.forecast.DemandForecaster;
import dev.horizon.forecast.DurationEstimator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * Discrete-event simulation of one policy on one scenario. Deterministic: the same scenario and
 * policy give the same result. The policy is asked on every arrival, completion and step boundary;
 * it sees estimates and forecasts only. Every decision is checked against the hard rules (no GPU
 * given twice, no start before arrival, starts only of waiting jobs) and a violation stops the run.
 */
public final class Simulator {
    private static final long MIN_ESTIMATE_SECONDS = 60;
    /** Ai2's sliding window for fair share. */
    public static final long FAIR_SHARE_WINDOW_SECONDS = 7 * 86_400;
    private final Scenario scenario;
    private final SchedulingPolicy policy;

    private final Occupancy occupancy;
    private final Map<String, SimJob> jobsById = new HashMap<>();
    private final Map<String, Run> running = new LinkedHashMap<>();
    private final Map<String, SimJob> pending = new LinkedHashMap<>();
    /** GPU-seconds of work each job has done and kept (finished segments and checkpoints). */
    private final Map<String, Long> done = new HashMap<>();
    private final Map<String, Long> firstStart = new HashMap<>();
    private final PriorityQueue<Completion> completions = new PriorityQueue<>(Comparator.comparingLong(Completion::time).thenComparing(Completion::jobId));
    private final DurationEstimator estimator = new DurationEstimator();
    private final Map<String, DemandForecaster> forecasters = new LinkedHashMap<>();
    private final Map<String, List<Placement>> inferenceHeld = new LinkedHashMap<>();
    private final Map<String, Integer> reservation = new HashMap<>();
    private final Map<String, Integer> historicalPeak = new HashMap<>();
    private final List<Segment> segments = new ArrayList<>();
    private final List<RtStep> rtSteps = new ArrayList<>();
    private final List<Double> latencies = new ArrayList<>();
    private final Map<String, Boolean> completed = new HashMap<>();
    private final Map<String, String> waitReasons = new HashMap<>();
    private final FairShareLedger ledger;
    private int preemptions;
    private long forecastStep = -1;
    private Map<String, double[]> forecastCache = Map.of();

    private record Run(SimJob job, long start, Placement placement, boolean fill, long version) {
    }

    private record Completion(long time, String jobId, long version) {
    }

    /** A GPU whose re-partitioning is done at time (the policy's drain time after it started). */
    private record LayoutReady(long time, int node, int gpu) {
    }

    private final PriorityQueue<LayoutReady> layoutsReady = new PriorityQueue<>(Comparator.comparingLong(LayoutReady::time)
            .thenComparingInt(LayoutReady::node).thenComparingInt(LayoutReady::gpu));

    public Simulator(Scenario scenario, SchedulingPolicy policy) {
        this.scenario = scenario;
        this.policy = policy;
        this.occupancy = new Occupancy(scenario.cluster());
        if (scenario.migPolicy() != null) {
            for (int n = 0; n < scenario.cluster().nodes().size(); n++) occupancy.setMigPolicy(n, scenario.migPolicy());
        }
        this.ledger = scenario.budgets() == null ? null : new FairShareLedger(scenario.budgets(), FAIR_SHARE_WINDOW_SECONDS);
        scenario.historyJobs().forEach(j -> estimator.observe(j.team(), j.jobClass(), j.trueDurationSeconds()));
        long stepsPerDay = Math.max(1, 86_400 / scenario.stepSeconds());
        for (ServiceDemand s : scenario.services()) {
            DemandForecaster f = new DemandForecaster((int) stepsPerDay, 7);
            for (double d : s.history()) f.observe(d);
            forecasters.put(s.service().name(), f);
            inferenceHeld.put(s.service().name(), new ArrayList<>());
            historicalPeak.put(s.service().name(), (int) Math.ceil(f.peak() - 1e-9));
        }
    }

    /** Runs the whole window; {@code progress} is told the fraction done now and then. */
    public SimResult run(java.util.function.DoubleConsumer progress) {
        List<SimJob> arrivals = new ArrayList<>(scenario.jobs());
        arrivals.sort(Comparator.comparingLong(SimJob::arrivalSeconds).thenComparing(SimJob::id));
        arrivals.forEach(j -> jobsById.put(j.id(), j));
        long end = scenario.windowSeconds();
        long step = scenario.stepSeconds();
        int nextArrival = 0;
        long nextBoundary = 0;
        int lastReported = -1;
        while (true) {
            long t = nextBoundary;
            if (nextArrival < arrivals.size()) t = Math.min(t, arrivals.get(nextArrival).arrivalSeconds());
            if (!completions.isEmpty()) t = Math.min(t, completions.peek().time());
            if (!layoutsReady.isEmpty()) t = Math.min(t, layoutsReady.peek().time());
            if (t >= end) break;
            while (!layoutsReady.isEmpty() && layoutsReady.peek().time() == t) {
                LayoutReady r = layoutsReady.poll();
                occupancy.finishReconfiguring(r.node(), r.gpu());
            }
            while (!completions.isEmpty() && completions.peek().time() == t) complete(completions.poll(), t);
            while (nextArrival < arrivals.size() && arrivals.get(nextArrival).arrivalSeconds() == t) {
                SimJob j = arrivals.get(nextArrival++);
                pending.put(j.id(), j);
            }
            if (t == nextBoundary) {
                stepBoundary((int) (t / step), t);
                nextBoundary += step;
                int pct = (int) (100 * t / end);
                if (pct != lastReported) {
                    progress.accept(t / (double) end);
                    lastReported = pct;
                }
            }
            bookFairShare(t);
            long started = System.nanoTime();
            Decision decision = policy.decide(context(t));
            latencies.add((System.nanoTime() - started) / 1e6);
            apply(decision, t);
            reconfigure(decision, t);
            waitReasons.putAll(decision.waitReasons());
            bookFairShare(t);
        }
        bookFairShare(end);
        for (Run r : new ArrayList<>(running.values())) {
            long ran = end - r.start();
            segments.add(segment(r, end, ran));
        }
        for (SimJob j : pending.values()) {
            if (!firstStart.containsKey(j.id())) {
                segments.add(new Segment(j.id(), j.jobClass(), j.team(), j.weight(), j.arrivalSeconds(), -1, -1, j.gpuFraction(), "", 0, false));
            }
        }
        progress.accept(1.0);
        Map<String, String> stillWaiting = new LinkedHashMap<>();
        for (String id : pending.keySet()) stillWaiting.put(id, waitReasons.getOrDefault(id, "arrived after the last decision"));
        return new SimResult(policy.name(), segments, rtSteps, Metrics.compute(scenario, segments, rtSteps, completed.size(),
                firstStart, preemptions, latencies, ledger), Metrics.utilizationPerStep(scenario, segments, rtSteps), stillWaiting);
    }

    /** Tells the fair-share ledger what each team runs and asks for from now on. */
    private void bookFairShare(long t) {
        if (ledger == null) return;
        Map<String, Double> run = new HashMap<>(), asked = new HashMap<>();
        for (Run r : running.values()) {
            run.merge(r.job().team(), r.placement().gpuFraction(), Double::sum);
            asked.merge(r.job().team(), r.job().gpuFraction(), Double::sum);
        }
        for (SimJob j : pending.values()) asked.merge(j.team(), j.gpuFraction(), Double::sum);
        int inference = inferenceHeld.values().stream().mapToInt(List::size).sum();
        ledger.advance(t, run, asked, scenario.cluster().totalGpus() - inference);
    }

    private void stepBoundary(int k, long t) {
        if (k > 0) {
            for (ServiceDemand s : scenario.services()) forecasters.get(s.service().name()).observe(s.window()[k - 1]);
        }
        if (scenario.services().isEmpty()) return;
        long started = System.nanoTime();
        Map<String, Integer> wanted = policy.inferenceReservation(context(t));
        latencies.add((System.nanoTime() - started) / 1e6);
        for (ServiceDemand s : scenario.services()) {
            String name = s.service().name();
            int r = Math.max(0, wanted.getOrDefault(name, 0));
            reservation.put(name, r);
            double demand = s.window()[k];
            int need = (int) Math.ceil(demand - 1e-9);
            List<Placement> held = inferenceHeld.get(name);
            int cap = Math.max(1, s.service().swapCapGpus());
            int target = policy.lendsReservation() ? Math.min(r, need) : r;
            if (k > 0) target = Math.max(held.size() - cap, Math.min(target, held.size() + cap));
            while (held.size() > target) occupancy.release(held.remove(held.size() - 1));
            int more = target - held.size();
            if (more > occupancy.totalFree()) {
                Reclaim.UnmetDemandCost cost = new Reclaim.UnmetDemandCost(policy.unmetInferencePenalty(), s.service().weightPerGpuHour(), scenario.stepSeconds());
                for (RunningJob v : Reclaim.victims(runningViews(t), more - occupancy.totalFree(), t, cost)) preempt(v.id(), t);
            }
            Placement singles = occupancy.findSingles(Math.min(more, occupancy.totalFree()));
            if (singles != null) {
                for (Placement.Slice slice : singles.slices()) {
                    Placement one = new Placement(List.of(slice));
                    occupancy.occupy(one);
                    held.add(one);
                }
            }
            rtSteps.add(new RtStep(name, t, demand, held.size(), s.service().weightPerGpuHour()));
        }
    }

    private PlanningContext context(long t) {
        long k = t / scenario.stepSeconds();
        if (k != forecastStep) {
            Map<String, double[]> f = new HashMap<>();
            forecasters.forEach((name, fc) -> f.put(name, fc.forecast(scenario.horizonSteps())));
            forecastCache = f;
            forecastStep = k;
        }
        Map<String, PlanningContext.ServiceView> services = new TreeMap<>();
        for (ServiceDemand s : scenario.services()) {
            String name = s.service().name();
            services.put(name, new PlanningContext.ServiceView(s.service(), inferenceHeld.get(name).size(),
                    reservation.getOrDefault(name, 0), forecastCache.get(name), historicalPeak.get(name)));
        }
        List<PendingJob> pendingViews = new ArrayList<>(pending.size());
        for (SimJob j : pending.values()) {
            long estimate = estimator.estimate(j.team(), j.jobClass(), j.userEstimateSeconds());
            long left = Math.max(MIN_ESTIMATE_SECONDS, estimate - done.getOrDefault(j.id(), 0L) / j.gpus());
            pendingViews.add(new PendingJob(j.id(), j.team(), j.jobClass(), j.weight(), j.gpus(), j.minGpus(), j.arrivalSeconds(), left,
                    j.contract(), j.slice(), j.rules()));
        }
        FairShareView fairShare = ledger == null ? null : new FairShareView(ledger.tree(), ledger.owedNow(), ledger.ratios());
        return new PlanningContext(t, scenario.stepSeconds(), scenario.horizonSteps(), scenario.cluster(), occupancy.copy(),
                runningViews(t), pendingViews, services, fairShare);
    }

    private List<RunningJob> runningViews(long t) {
        List<RunningJob> views = new ArrayList<>(running.size());
        for (Run r : running.values()) {
            SimJob j = r.job();
            int g = r.placement().gpus();
            long estimatedWork = estimator.estimate(j.team(), j.jobClass(), j.userEstimateSeconds()) * j.gpus() - done.getOrDefault(j.id(), 0L);
            long segmentEstimate = Math.max(MIN_ESTIMATE_SECONDS, estimatedWork / g);
            long left = DurationEstimator.remaining(segmentEstimate, t - r.start(), MIN_ESTIMATE_SECONDS);
            views.add(new RunningJob(j.id(), j.team(), j.jobClass(), j.weight(), g, j.arrivalSeconds(), r.start(), t + left,
                    j.contract(), r.placement(), r.fill(), j.rules()));
        }
        return views;
    }

    /**
     * Starts the re-partitionings the policy asks for that the MIG policy allows now (ReconfigurationPlanner: idle GPUs
     * only, at most N at once); each GPU serves nothing for the drain time, then has its new layout.
     */
    private void reconfigure(Decision decision, long t) {
        if (decision.reconfigurations().isEmpty() || scenario.migPolicy() == null) return;
        List<dev.horizon.fractional.mig.GpuState> gpus = new ArrayList<>();
        Map<String, int[]> where = new HashMap<>();
        for (int n = 0; n < scenario.cluster().nodes().size(); n++) {
            for (int g = 0; g < scenario.cluster().nodes().get(n).gpus(); g++) {
                String id = n + "/" + g;
                gpus.add(occupancy.migState(n, g, id));
                where.put(id, new int[] {n, g});
            }
        }
        Map<String, dev.horizon.api.mig.MigLayout> wanted = new LinkedHashMap<>();
        for (Decision.Reconfigure r : decision.reconfigurations()) wanted.put(r.node() + "/" + r.gpu(), r.layout());
        java.time.Instant now = java.time.Instant.ofEpochSecond(t);
        for (ReconfigurationPlanner.Reconfiguration r : ReconfigurationPlanner.plan(scenario.migPolicy(), gpus, wanted, now).started()) {
            int[] at = where.get(r.gpuId());
            occupancy.markReconfiguring(at[0], at[1], r.to());
            layoutsReady.add(new LayoutReady(r.readyAt().getEpochSecond(), at[0], at[1]));
        }
    }

    private void apply(Decision decision, long t) {
        for (String id : decision.preemptions()) {
            if (!running.containsKey(id)) throw new IllegalStateException(policy.name() + " preempted " + id + ", which is not running");
            preempt(id, t);
        }
        for (String id : decision.promotions()) {
            Run r = running.get(id);
            if (r == null || !r.fill()) throw new IllegalStateException(policy.name() + " promoted " + id + ", which is not running as fill");
            running.put(id, new Run(r.job(), r.start(), r.placement(), false, r.version()));
        }
        for (Decision.Start s : decision.starts()) {
            SimJob j = pending.get(s.jobId());
            if (j == null) throw new IllegalStateException(policy.name() + " started " + s.jobId() + ", which is not waiting");
            if (j.arrivalSeconds() > t) throw new IllegalStateException(policy.name() + " started " + j.id() + " before it arrived");
            int g = s.placement().gpus();
            if (!j.rules().widths(j.gpus(), j.minGpus()).contains(g)) {
                throw new IllegalStateException(policy.name() + " gave " + j.id() + " " + g + " GPUs; it may have only "
                        + j.rules().widths(j.gpus(), j.minGpus()));
            }
            if (s.fill() && !policy.lendsReservation()) throw new IllegalStateException(policy.name() + " started fill work but does not lend");
            occupancy.occupy(s.placement());
            pending.remove(j.id());
            firstStart.putIfAbsent(j.id(), t);
            long version = t * 31 + segments.size();
            running.put(j.id(), new Run(j, t, s.placement(), s.fill(), version));
            long workLeft = j.work() - done.getOrDefault(j.id(), 0L);
            long left = (workLeft + g - 1) / g;
            completions.add(new Completion(t + Math.max(1, left), j.id(), version));
        }
    }

    private void complete(Completion c, long t) {
        Run r = running.get(c.jobId());
        if (r == null || r.version() != c.version()) return; // preempted since
        running.remove(c.jobId());
        occupancy.release(r.placement());
        segments.add(segment(r, t, t - r.start()));
        done.merge(r.job().id(), (t - r.start()) * r.placement().gpus(), Long::sum);
        completed.put(r.job().id(), true);
        estimator.observe(r.job().team(), r.job().jobClass(), r.job().trueDurationSeconds());
    }

    private void preempt(String id, long t) {
        Run r = running.remove(id);
        occupancy.release(r.placement());
        long ran = t - r.start();
        long credit = r.job().contract().resumable() ? Math.max(0, ran - r.job().contract().checkpointCostSeconds()) : 0;
        segments.add(segment(r, t, credit));
        if (r.job().contract().resumable()) done.merge(id, credit * r.placement().gpus(), Long::sum);
        else done.remove(id);
        pending.put(id, r.job());
        preemptions++;
    }

    private Segment segment(Run r, long end, long keptSeconds) {
        SimJob j = r.job();
        return new Segment(j.id(), j.jobClass(), j.team(), j.weight(), j.arrivalSeconds(), r.start(), end, r.placement().gpuFraction(),
                r.placement().describe(scenario.cluster()), keptSeconds, r.fill());
    }
}
