package dev.horizon.simulation;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.eta.ExpectedArrivals;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.moment.Teams;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fairshare.FairShareLedger;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.fractional.mig.ReconfigurationPlanner;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Discrete-event simulation of one policy on one scenario. Deterministic: the same scenario and policy give the same
 * result. The policy is asked on every arrival, completion and step boundary, and on a minute boundary where inference
 * gave GPUs back or took them from batch work; it sees estimates, forecasts and demand already observed only. Every
 * decision is audited against the cluster's hard rules ({@link Audit}); an action the cluster cannot carry out (a GPU
 * given twice, a start of a job that is not waiting) is refused, the others are carried out, and each breach is listed.
 */
public final class Simulator {
    /** Kubernetes' default termination grace period: a GPU taken back from batch work serves inference after it. */
    public static final long DEFAULT_RECLAIM_SECONDS = 30;
    /** Ai2's sliding window for fair share. */
    public static final long FAIR_SHARE_WINDOW_SECONDS = 7 * 86_400;
    private static final long MINUTE = ServiceDemand.SECONDS_PER_MINUTE;
    private final Scenario scenario;
    private final SchedulingPolicy policy;
    /** The policy, when it keeps its own state of the world and must hear of what happens in it (the service engine). */
    private final WorldEvents events;

    private final Occupancy occupancy;
    private final Map<String, SimJob> jobsById = new HashMap<>();
    private final Map<String, Run> running = new LinkedHashMap<>();
    private final Map<String, SimJob> pending = new LinkedHashMap<>();
    /** GPU-seconds of work each job has done and kept (finished segments and checkpoints). */
    private final Map<String, Long> done = new HashMap<>();
    /** How often each job started, and how often it was preempted. */
    private final Map<String, Integer> timesStarted = new HashMap<>();
    private final Map<String, Integer> timesPreempted = new HashMap<>();
    private final Map<String, Long> firstStart = new HashMap<>();
    private final PriorityQueue<Completion> completions = new PriorityQueue<>(Comparator.comparingLong(Completion::time).thenComparing(Completion::jobId));
    private final DurationEstimator estimator = new DurationEstimator();
    private final InferenceFleet inference;
    private final Audit audit = new Audit();
    private final List<Segment> segments = new ArrayList<>();
    private final List<Double> latencies = new ArrayList<>();
    private final Map<String, Boolean> completed = new HashMap<>();
    /** Each job's latest wait reason, worded only for the jobs still waiting at the end. */
    private final Map<String, Supplier<String>> waitReasons = new HashMap<>();
    private final FairShareLedger ledger;
    private int preemptions;
    private DecisionObserver observer;

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
        this(scenario, policy, DEFAULT_RECLAIM_SECONDS);
    }

    public Simulator(Scenario scenario, SchedulingPolicy policy, long reclaimSeconds) {
        if (reclaimSeconds < 0) throw new IllegalArgumentException("--reclaim-seconds must be >= 0 (got " + reclaimSeconds + ")");
        this.scenario = scenario;
        this.policy = policy;
        this.events = policy instanceof WorldEvents w ? w : null;
        this.occupancy = new Occupancy(scenario.cluster());
        if (scenario.migPolicy() != null) {
            for (int n = 0; n < scenario.cluster().nodes().size(); n++) occupancy.setMigPolicy(n, scenario.migPolicy());
        }
        scenario.startLayouts().forEach(l -> occupancy.setMigLayout(l.node(), l.gpu(), l.layout()));
        this.ledger = scenario.budgets() == null ? null : new FairShareLedger(scenario.budgets(), FAIR_SHARE_WINDOW_SECONDS);
        scenario.historyJobs().forEach(j -> estimator.observe(j.team(), j.jobClass(), j.trueDurationSeconds()));
        rememberTheLastDaysRuns(scenario.historyJobs());
        this.inference = new InferenceFleet(scenario, occupancy, reclaimSeconds);
    }

    /**
     * The runs of the history submitted over the day before the window, remembered with their shape as a control plane
     * remembers the day's finished runs for the bands' futures (the log has no start, so each is taken to have started
     * on submission; history that is not placed in time, arriving at 0, is left out): without them, the first hours'
     * futures know no burst of the past.
     */
    private void rememberTheLastDaysRuns(List<SimJob> history) {
        history.stream().map(j -> new DurationEstimator.Finished(j.team(), j.jobClass(), j.gpus(), j.arrivalSeconds(),
                j.arrivalSeconds() + j.trueDurationSeconds(), j.trueDurationSeconds()))
                .filter(f -> f.arrivalSeconds() >= -ExpectedArrivals.WINDOW_SECONDS && f.endSeconds() <= 0)
                .sorted(Comparator.comparingLong(DurationEstimator.Finished::endSeconds))
                .forEach(estimator::remember);
    }

    /** From now on the observer is told of every decision with the moment it was made on. */
    public Simulator observedBy(DecisionObserver decisions) {
        this.observer = decisions;
        return this;
    }

    /** Runs the whole window; {@code progress} is told the fraction done now and then. */
    public SimResult run(java.util.function.DoubleConsumer progress) {
        List<SimJob> arrivals = new ArrayList<>(scenario.jobs());
        arrivals.sort(Comparator.comparingLong(SimJob::arrivalSeconds).thenComparing(SimJob::id));
        arrivals.forEach(j -> jobsById.put(j.id(), j));
        List<Scenario.NodeDrain> drains = new ArrayList<>(scenario.drains());
        drains.sort(Comparator.comparingLong(Scenario.NodeDrain::atSeconds));
        long end = scenario.windowSeconds();
        long step = scenario.stepSeconds();
        int nextArrival = 0, nextDrain = 0;
        long nextMinute = 0;
        int lastReported = -1;
        while (true) {
            long t = nextMinute;
            if (nextArrival < arrivals.size()) t = Math.min(t, arrivals.get(nextArrival).arrivalSeconds());
            if (nextDrain < drains.size()) t = Math.min(t, drains.get(nextDrain).atSeconds());
            if (!completions.isEmpty()) t = Math.min(t, completions.peek().time());
            if (!layoutsReady.isEmpty()) t = Math.min(t, layoutsReady.peek().time());
            if (t >= end) break;
            boolean event = false;
            while (!layoutsReady.isEmpty() && layoutsReady.peek().time() == t) {
                LayoutReady r = layoutsReady.poll();
                occupancy.finishReconfiguring(r.node(), r.gpu());
                event = true;
            }
            while (nextDrain < drains.size() && drains.get(nextDrain).atSeconds() == t) {
                int drained = drains.get(nextDrain++).node();
                occupancy.drain(drained);
                if (events != null) events.drained(drained, t);
                event = true;
            }
            while (!completions.isEmpty() && completions.peek().time() == t) event |= complete(completions.poll(), t);
            while (nextArrival < arrivals.size() && arrivals.get(nextArrival).arrivalSeconds() == t) {
                SimJob j = arrivals.get(nextArrival++);
                pending.put(j.id(), j);
                if (events != null) events.arrived(j, t);
                event = true;
            }
            if (t == nextMinute) {
                event |= minuteBoundary((int) (t / MINUTE), t);
                nextMinute += MINUTE;
                int pct = (int) (100 * t / end);
                if (pct != lastReported) {
                    progress.accept(t / (double) end);
                    lastReported = pct;
                }
            }
            if (!event) continue;
            bookFairShare(t);
            long started = System.nanoTime();
            ClusterMoment moment = moment(t);
            Decision decision = policy.decide(ContextBuilder.build(moment));
            latencies.add((System.nanoTime() - started) / 1e6);
            inference.heldForWideJob(decision.nodesHeldForWideJob(scenario.cluster().nodes().size()));
            if (observer != null) observer.decided(moment, decision);
            apply(decision, t);
            reconfigure(decision, t);
            decision.forEachWaitReason(waitReasons::put);
            bookFairShare(t);
        }
        bookFairShare(end);
        for (Run r : new ArrayList<>(running.values())) {
            long ran = end - r.start();
            segments.add(segment(r, end, ran));
        }
        for (SimJob j : pending.values()) {
            if (!firstStart.containsKey(j.id())) {
                segments.add(new Segment(j.id(), j.jobClass(), j.team(), j.weight(), j.arrivalSeconds(), -1, -1, j.gpuFraction(), 0, "", 0, false));
            }
        }
        progress.accept(1.0);
        Map<String, String> stillWaiting = new LinkedHashMap<>();
        for (String id : pending.keySet()) {
            Supplier<String> why = waitReasons.get(id);
            stillWaiting.put(id, why != null ? why.get() : waitReasons.containsKey(id) ? null : "arrived after the last decision");
        }
        List<RtMinute> rt = inference.minutes();
        return new SimResult(policy.name(), segments, rt, Metrics.compute(scenario, segments, rt, completed.size(),
                firstStart, preemptions, latencies, ledger), Metrics.utilizationPerStep(scenario, segments, rt), stillWaiting, audit.report());
    }

    /** Tells the fair-share ledger what each team runs (charged by what it asked for) and asks for from now on. */
    private void bookFairShare(long t) {
        if (ledger == null) return;
        Map<String, Double> run = new HashMap<>(), asked = new HashMap<>();
        for (Run r : running.values()) {
            run.merge(r.job().team(), r.job().askedOn(r.placement()), Double::sum);
            asked.merge(r.job().team(), r.job().gpuFraction(), Double::sum);
        }
        for (SimJob j : pending.values()) asked.merge(j.team(), j.gpuFraction(), Double::sum);
        ledger.advance(t, run, asked, scenario.cluster().totalGpus() - inference.totalHeld());
    }

    /**
     * Minute m starts at t (on a step boundary the policy first sets the step's reservation): the minute before is
     * observed, the policy sizes each service for this minute, and the minute is scored. True when the policy must be
     * asked again: a step began, or GPUs passed between inference and batch work.
     */
    private boolean minuteBoundary(int m, long t) {
        boolean stepBegins = t % scenario.stepSeconds() == 0;
        inference.observeMinuteBefore(m);
        if (inference.isEmpty()) return stepBegins;
        if (stepBegins) {
            inference.stepBegins((int) (t / scenario.stepSeconds()));
            long started = System.nanoTime();
            inference.reserve(policy.inferenceReservation(context(t)));
            latencies.add((System.nanoTime() - started) / 1e6);
        }
        Map<String, Integer> targets = policy.inferenceTargets(t, ContextBuilder.services(moment(t)));
        boolean moved = inference.resize(m, t, t < scenario.stepSeconds(), targets, this::takeBack);
        if (events != null) inference.states().forEach(s -> events.inferenceHeld(s.service().name(), s.held(), t));
        return stepBegins || moved;
    }

    /** The policy names the batch work that gives GPUs back to a growing service; it is preempted now. */
    private int takeBack(ServiceDemand service, int gpus, long t) {
        UnmetDemandCost cost = new UnmetDemandCost(policy.unmetInferencePenalty(), service.service().weightPerGpuHour(),
                scenario.stepSeconds());
        int freed = 0;
        for (RunningJob v : policy.inferenceVictims(ContextBuilder.running(moment(t)), gpus, t, cost)) {
            Run r = running.get(v.id());
            if (r == null) {
                audit.violation(Audit.Kind.PREEMPTED_NOT_RUNNING, t, policy.name() + " gave inference the GPUs of " + v.id() + ", which is not running");
                continue;
            }
            auditPreemption(r, t, true);
            freed += r.placement().gpuCount();
            preempt(v.id(), t);
            if (events != null) events.preemptedByWorld(v.id(), t);
        }
        return freed;
    }

    private PlanningContext context(long t) {
        return ContextBuilder.build(moment(t));
    }

    /** The cluster at t as the scheduler may know it: the world without true durations and future demand. */
    private ClusterMoment moment(long t) {
        List<NodeState> nodes = new ArrayList<>();
        for (int n = 0; n < scenario.cluster().nodes().size(); n++) nodes.add(nodeState(n));
        List<ActiveJob> jobs = new ArrayList<>(running.size() + pending.size());
        for (Run r : running.values()) jobs.add(jobState(r.job(), new ActiveJob.Running(r.start(), r.placement(), r.fill())));
        for (SimJob j : pending.values()) jobs.add(jobState(j, null));
        Teams teams = ledger == null ? null : new Teams(ledger.tree(), ledger.windowUsage());
        return new ClusterMoment(t, scenario.stepSeconds(), scenario.horizonSteps(), nodes, jobs, teams, inference.states(), estimator);
    }

    private NodeState nodeState(int n) {
        var node = scenario.cluster().nodes().get(n);
        List<NodeState.Gpu> gpus = new ArrayList<>(node.gpus());
        for (int g = 0; g < node.gpus(); g++) {
            MigLayout changingTo = !occupancy.isReconfiguring(n, g) ? null
                    : java.util.Objects.requireNonNullElse(occupancy.reconfiguringTo(n, g), MigLayout.unpartitioned(node.gpuModel()));
            gpus.add(new NodeState.Gpu(occupancy.migLayout(n, g), changingTo, false));
        }
        // a scenario's drains are nodes turning unhealthy
        return new NodeState(node, occupancy.isDrained(n) ? NodeState.Health.UNHEALTHY : NodeState.Health.READY, scenario.migPolicy(), gpus);
    }

    private ActiveJob jobState(SimJob j, ActiveJob.Running run) {
        ActiveJob.RunHistory history = new ActiveJob.RunHistory(done.getOrDefault(j.id(), 0L), timesStarted.getOrDefault(j.id(), 0),
                timesPreempted.getOrDefault(j.id(), 0), 0);
        return new ActiveJob(j.id(), j.team(), j.jobClass(), j.weight(), j.gpus(), j.minGpus(), j.arrivalSeconds(), j.userEstimateSeconds(),
                j.contract(), j.slice(), j.rules(), history, run);
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
            Run r = running.get(id);
            if (r == null) {
                audit.violation(Audit.Kind.PREEMPTED_NOT_RUNNING, t, policy.name() + " preempted " + id + ", which is not running");
                continue;
            }
            auditPreemption(r, t, false);
            preempt(id, t);
        }
        boolean protectedAdded = false;
        for (String id : decision.promotions()) {
            Run r = running.get(id);
            if (r == null || !r.fill()) {
                audit.violation(Audit.Kind.PROMOTED_NOT_FILL, t, policy.name() + " promoted " + id + ", which is not running as fill");
                continue;
            }
            running.put(id, new Run(r.job(), r.start(), r.placement(), false, r.version()));
            protectedAdded = true;
        }
        for (Decision.Start s : decision.starts()) {
            if (!startAllowed(s, t)) continue;
            SimJob j = pending.remove(s.jobId());
            int g = s.placement().gpuCount();
            occupancy.occupy(s.placement());
            firstStart.putIfAbsent(j.id(), t);
            timesStarted.merge(j.id(), 1, Integer::sum);
            long version = t * 31 + segments.size();
            running.put(j.id(), new Run(j, t, s.placement(), s.fill(), version));
            long workLeft = j.work() - done.getOrDefault(j.id(), 0L);
            long left = (workLeft + g - 1) / g;
            completions.add(new Completion(t + Math.max(1, left), j.id(), version));
            protectedAdded |= !s.fill();
        }
        if (protectedAdded) auditReservation(t);
    }

    /**
     * Audits one start: the ones the cluster cannot carry out (not waiting, before arrival, a width it did not ask for,
     * GPUs already busy) are refused; the others are carried out and any rule they break is listed.
     */
    private boolean startAllowed(Decision.Start s, long t) {
        SimJob j = pending.get(s.jobId());
        String who = policy.name() + " started " + s.jobId();
        if (j == null) {
            SimJob known = jobsById.get(s.jobId());
            boolean early = known != null && known.arrivalSeconds() > t;
            audit.violation(early ? Audit.Kind.START_BEFORE_ARRIVAL : Audit.Kind.STARTED_NOT_WAITING, t,
                    who + (early ? " before it arrived" : ", which is not waiting"));
            return false;
        }
        int g = s.placement().gpuCount();
        if (!j.rules().widths(j.gpus(), j.minGpus()).contains(g)) {
            boolean partGang = j.rules().gang() && g < j.gpus();
            audit.violation(partGang ? Audit.Kind.GANG_STARTED_PARTLY : Audit.Kind.WRONG_WIDTH, t, who + " on " + g + " GPUs; it may have only "
                    + j.rules().widths(j.gpus(), j.minGpus()));
            return false;
        }
        auditRules(j, s.placement(), t, who);
        if (!occupancy.isFree(s.placement())) {
            audit.violation(Audit.Kind.GPU_GIVEN_TWICE, t, who + " on GPUs already busy: " + s.placement().describe(scenario.cluster()));
            return false;
        }
        if (s.placement().slices().stream().anyMatch(slice -> occupancy.isDrained(slice.node()))) {
            audit.violation(Audit.Kind.ON_DRAINED_NODE, t, who + " on a drained node: " + s.placement().describe(scenario.cluster()));
        }
        if (s.fill() && !policy.lendsReservation()) audit.violation(Audit.Kind.FILL_WITHOUT_LENDING, t, who + " as fill but does not lend");
        // fair share's unallocated work runs as fill whatever it loses (Ai2's rule); lent inference GPUs need resumable work
        if (s.fill() && !j.contract().resumable() && scenario.budgets() == null) {
            audit.violation(Audit.Kind.NON_RESUMABLE_FILL, t, who + " as fill, but it cannot resume");
        }
        return true;
    }

    /**
     * The job's placement rules, checked on the GPUs it got: their model (a slice's too), its topology (a fractional
     * job's replicas too), whole replicas on each node (whole-GPU work).
     */
    private void auditRules(SimJob j, Placement p, long t, String who) {
        PlacementRules rules = j.rules();
        Map<Integer, Integer> perNode = new TreeMap<>();
        for (Placement.Slice slice : p.slices()) perNode.merge(slice.node(), slice.count(), Integer::sum);
        java.util.Set<String> domains = new java.util.HashSet<>();
        String wrongModel = null, split = null;
        for (Map.Entry<Integer, Integer> e : perNode.entrySet()) {
            GpuNode node = scenario.cluster().nodes().get(e.getKey());
            boolean accepted = rules.accepts(node.gpuModel()) && (j.slice() == null || j.slice().accepts(node.gpuModel()));
            if (!accepted) wrongModel = node.name() + " (" + node.gpuModel() + ")";
            if (!p.shared() && rules.perReplica() && e.getValue() % rules.gpusPerReplica() != 0) split = node.name();
            domains.add(scenario.cluster().domainOf(e.getKey()));
        }
        if (wrongModel != null) audit.violation(Audit.Kind.WRONG_GPU_TYPE, t, who + " on " + wrongModel + "; it accepts " + rules.gpuTypes());
        boolean spread = switch (rules.topology()) {
            case SAME_NODE -> perNode.size() > 1;
            case SAME_NVLINK_DOMAIN -> domains.size() > 1;
            case ANY -> false;
        };
        if (spread || split != null) {
            audit.violation(Audit.Kind.BROKEN_TOPOLOGY, t, who + " across " + p.describe(scenario.cluster()) + "; it asks for "
                    + rules.topology().json() + (rules.perReplica() ? " in replicas of " + rules.gpusPerReplica() + " GPUs" : ""));
        }
    }

    /** Work inside its minimum runtime is never preempted; fill is never protected, and is counted apart. */
    private void auditPreemption(Run r, long t, boolean byInference) {
        if (t - r.start() >= r.job().contract().minRuntimeSeconds()) return;
        if (r.fill()) {
            audit.exempt(byInference ? Audit.FILL_RECLAIMED_BY_INFERENCE : Audit.FILL_PREEMPTED_BY_POLICY);
            return;
        }
        audit.violation(Audit.Kind.PREEMPTED_INSIDE_MIN_RUNTIME, t, policy.name() + (byInference ? " gave inference the GPUs of " : " preempted ")
                + r.job().id() + " after " + (t - r.start()) + " s of its " + r.job().contract().minRuntimeSeconds() + " s minimum runtime");
    }

    /** Protected work may not stand on GPUs an inference service claims (its reservation, or more while it holds more). */
    private void auditReservation(long t) {
        java.util.Set<GpuRef> gpus = new java.util.HashSet<>();
        for (Run r : running.values()) if (!r.fill()) gpus.addAll(r.placement().gpus());
        int total = scenario.cluster().totalGpus(), claimed = inference.claimed();
        if (gpus.size() + claimed > total) {
            audit.violation(Audit.Kind.PROTECTED_IN_RESERVATION, t, policy.name() + " runs protected work on " + gpus.size()
                    + " GPUs while inference claims " + claimed + " of " + total);
        }
    }

    /** Returns true: a completion frees GPUs, so the policy is asked again. */
    private boolean complete(Completion c, long t) {
        Run r = running.get(c.jobId());
        if (r == null || r.version() != c.version()) return false; // preempted since
        running.remove(c.jobId());
        occupancy.release(r.placement());
        segments.add(segment(r, t, t - r.start()));
        done.merge(r.job().id(), (t - r.start()) * r.placement().gpuCount(), Long::sum);
        completed.put(r.job().id(), true);
        if (events != null) events.finished(r.job().id(), t);
        SimJob j = r.job();
        estimator.observe(new DurationEstimator.Finished(j.team(), j.jobClass(), j.gpus(), j.arrivalSeconds(), t, j.trueDurationSeconds()));
        return true;
    }

    private void preempt(String id, long t) {
        Run r = running.remove(id);
        occupancy.release(r.placement());
        long ran = t - r.start();
        long credit = r.job().contract().keptWork(ran);
        segments.add(segment(r, t, credit));
        if (r.job().contract().resumable()) done.merge(id, credit * r.placement().gpuCount(), Long::sum);
        else done.remove(id);
        pending.put(id, r.job());
        timesPreempted.merge(id, 1, Integer::sum);
        preemptions++;
    }

    private Segment segment(Run r, long end, long keptSeconds) {
        SimJob j = r.job();
        return new Segment(j.id(), j.jobClass(), j.team(), j.weight(), j.arrivalSeconds(), r.start(), end, j.askedOn(r.placement()),
                r.placement().gpuFraction(), r.placement().describe(scenario.cluster()), keptSeconds, r.fill());
    }
}
