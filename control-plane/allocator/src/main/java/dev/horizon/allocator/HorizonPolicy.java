package dev.horizon.allocator;

import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import dev.horizon.fairshare.FairShareWeights;
import dev.horizon.forecast.BurstMargin;

/**
 * Horizon's policy: plans the GPU x timestep grid over the horizon and commits only the current step.
 * Inference keeps a reservation that follows its forecast (ramped early enough for the swap cap);
 * protected work is planned inside the cluster minus that reservation; GPUs the reservation does not
 * use right now are lent to resumable work as fill, which inference takes back when demand comes.
 */
public final class HorizonPolicy implements SchedulingPolicy {
    /** Value order: weight first, then first come first served. */
    public static final Comparator<PendingJob> VALUE_ORDER = Comparator
            .comparingDouble(PendingJob::weight).reversed()
            .thenComparingLong(PendingJob::arrivalSeconds)
            .thenComparing(PendingJob::id);

    static final double RESERVATION_HEADROOM = 1.2;
    static final long WIDE_JOB_PATIENCE_SECONDS = 3600;
    static final BurstMargin INFERENCE_SIZING = new BurstMargin(15, 0.99);
    private final double decayPerStep;
    private final double unmetInferencePenalty;
    private final Function<PlanProblem, Plan> planner;
    private final String name;

    public HorizonPolicy() {
        this("horizon", 0.99, 8.0, new HeuristicPlanner()::plan);
    }

    /**
     * decayPerStep: how much less a GPU-step is worth each step further out (rewards decay across the
     * horizon); unmetInferencePenalty: unmet real-time demand's cost as a multiple of the allocation
     * reward, 5 to 10 as in Dharma's model.
     */
    public HorizonPolicy(String name, double decayPerStep, double unmetInferencePenalty, Function<PlanProblem, Plan> planner) {
        if (!(decayPerStep > 0 && decayPerStep <= 1)) throw new IllegalArgumentException("decayPerStep must be in (0, 1]: " + decayPerStep);
        if (unmetInferencePenalty < 5 || unmetInferencePenalty > 10) {
            throw new IllegalArgumentException("unmetInferencePenalty must be between 5 and 10 (Dharma's range): " + unmetInferencePenalty);
        }
        this.name = name;
        this.decayPerStep = decayPerStep;
        this.unmetInferencePenalty = unmetInferencePenalty;
        this.planner = planner;
    }

    @Override
    public double unmetInferencePenalty() {
        return unmetInferencePenalty;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean lendsReservation() {
        return true;
    }

    @Override
    public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        Map<String, Integer> out = new LinkedHashMap<>();
        ctx.services().forEach((name, view) -> out.put(name, reservationPath(view, ctx.horizonSteps())[0]));
        return out;
    }

    /**
     * Per minute, inference holds what its own bursts need ({@link BurstMargin}: the busiest of the last quarter hour
     * plus the margin that covered 99% of its minutes over the last day); the rest of its reservation runs fill. Beyond
     * the reservation it takes GPUs back from batch work as any service does.
     */
    @Override
    public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        Map<String, Integer> out = new LinkedHashMap<>();
        services.forEach((name, view) -> out.put(name, INFERENCE_SIZING.gpus(view.observedMinutes())));
        return out;
    }

    /**
     * GPUs to reserve per step: the forecast with headroom (20% and one GPU: unused reservation is
     * lent as fill, so headroom costs little), raised early where a rise is steeper than the swap cap.
     */
    public static int[] reservationPath(PlanningContext.ServiceView view, int steps) {
        int[] r = new int[steps];
        for (int t = 0; t < steps; t++) r[t] = (int) Math.ceil(view.forecast()[t] * RESERVATION_HEADROOM + 1 - 1e-9);
        int cap = Math.max(1, view.service().swapCapGpus());
        for (int t = steps - 2; t >= 0; t--) r[t] = Math.max(r[t], r[t + 1] - cap);
        return r;
    }

    @Override
    public Decision decide(PlanningContext given) {
        PlanningContext ctx = given;
        Set<String> fillOnly = Set.of();
        Set<String> staysFill = Set.of();
        if (given.fairShare() != null) {
            FairShareWeights.Weighted weighted = FairShareWeights.apply(given);
            ctx = weighted.context();
            fillOnly = weighted.fillOnly();
            staysFill = weighted.unallocatedRunning();
        }
        Decision decision = new Decision();
        ctx = leaveDrainedNodes(ctx, decision);
        int h = ctx.horizonSteps();
        long step = ctx.stepSeconds();
        Cluster cluster = ctx.cluster();
        int nodes = cluster.nodes().size();
        int total = cluster.totalGpus();

        int[] capacity = new int[h];
        java.util.Arrays.fill(capacity, total);
        for (PlanningContext.ServiceView view : ctx.services().values()) {
            int[] path = reservationPath(view, h);
            path[0] = Math.max(path[0], view.reservedGpus());
            for (int t = 0; t < h; t++) capacity[t] -= Math.max(path[t], t == 0 ? view.heldGpus() : 0);
        }
        int[] nodeSizes = new int[nodes];
        int[][] nodeFree = new int[nodes][h];
        for (int n = 0; n < nodes; n++) {
            nodeSizes[n] = cluster.nodes().get(n).gpus();
            java.util.Arrays.fill(nodeFree[n], nodeSizes[n]);
            nodeFree[n][0] = ctx.occupancy().freeOn(n);
        }
        Map<String, Boolean> promote = new HashMap<>();
        List<RunningJob> fill = new ArrayList<>();
        for (RunningJob r : ctx.running()) {
            if (r.placement().shared()) continue; // counted per GPU below: several jobs share one
            if (r.fill()) {
                fill.add(r);
                for (Placement.Slice s : r.placement().slices()) nodeFree[s.node()][0] += s.count();
                continue;
            }
            int end = stepsUntil(ctx, r.estimatedEndSeconds(), h);
            for (int t = 0; t < end; t++) capacity[t] -= r.gpus();
            for (Placement.Slice s : r.placement().slices()) {
                for (int t = 1; t < end; t++) nodeFree[s.node()][t] -= s.count();
            }
        }
        if (ctx.occupancy().hasFractional()) reserveSharedGpus(ctx, capacity, nodeFree);
        // fill work that now fits in protected capacity for its whole estimated run becomes protected
        fill.sort(Comparator.comparingDouble(RunningJob::weight).reversed().thenComparingLong(RunningJob::startSeconds));
        for (RunningJob r : fill) {
            if (staysFill.contains(r.id())) continue;
            int end = stepsUntil(ctx, r.estimatedEndSeconds(), h);
            boolean fits = true;
            for (int t = 0; t < end && fits; t++) fits = capacity[t] >= r.gpus();
            if (!fits) continue;
            for (int t = 0; t < end; t++) capacity[t] -= r.gpus();
            for (Placement.Slice s : r.placement().slices()) {
                nodeFree[s.node()][0] -= s.count();
                for (int t = 1; t < end; t++) nodeFree[s.node()][t] -= s.count();
            }
            promote.put(r.id(), true);
        }

        List<PendingJob> pending = new ArrayList<>(ctx.pending());
        pending.sort(VALUE_ORDER);
        List<PlanProblem.Job> jobs = new ArrayList<>(pending.size());
        SlicePlacer slicer = pending.stream().anyMatch(j -> j.slice() != null) ? new SlicePlacer(pending) : null;
        Set<String> sliced = new java.util.HashSet<>();
        for (PendingJob j : pending) {
            if (j.slice() != null && !fillOnly.contains(j.id())) {
                // slices beside work a GPU already holds cost the plan no GPU: they go first, in value order
                List<String> problems = j.slice().problems(cluster);
                if (!problems.isEmpty()) {
                    decision.waiting(j.id(), "cannot be placed in this cluster: " + String.join("; ", problems));
                    sliced.add(j.id());
                    continue;
                }
                if (applySlices(slicer.place(ctx.occupancy(), j, false), j, ctx.occupancy(), decision, false)) sliced.add(j.id());
            }
        }
        for (PendingJob j : pending) {
            if (fillOnly.contains(j.id()) || sliced.contains(j.id())) continue;
            int d = (int) Math.max(1, Math.min(h, (j.estimatedRemainingSeconds() + step - 1) / step));
            jobs.add(new PlanProblem.Job(j.id(), j.weight(), j.gpus(), d, j.minGpus()));
        }
        PlanProblem problem = new PlanProblem(h, decayPerStep, nodeSizes, capacity, nodeFree, jobs);
        Plan plan = planner.apply(problem);

        decision.planObjective(plan.objective());
        promote.keySet().forEach(decision::promote);
        Occupancy occupancy = ctx.occupancy();
        List<RunningJob> fillLeft = new ArrayList<>(fill);
        fillLeft.removeIf(r -> promote.containsKey(r.id()));
        VictimPool fillPool = new VictimPool(fillLeft, ctx.now());
        List<PendingJob> notStarted = new ArrayList<>();
        for (PendingJob j : pending) {
            if (sliced.contains(j.id())) continue;
            if (fillOnly.contains(j.id()) && j.slice() != null) {
                // taking a slice back frees no GPU, so slices never run as fill: the job waits for its team's share
                decision.waiting(j.id(), "its team already runs all it is owed now (" + owedOf(given, j.team())
                        + " GPUs); fractional work does not run as fill, so it waits until its team is owed more");
                continue;
            }
            if (fillOnly.contains(j.id())) {
                notStarted.add(j);
                decision.waiting(j.id(), "its team already runs all it is owed now (" + owedOf(given, j.team())
                        + " GPUs); it runs as unallocated fill when GPUs are idle, and yields to budgeted work");
                continue;
            }
            Integer s = plan.startStep().get(j.id());
            if (j.slice() != null) {
                // each replica was planned as one GPU; at step 0 it may open free GPUs, later it only packs beside others
                applySlices(slicer.place(occupancy, j, s != null && s == 0), j, occupancy, decision, true);
                continue;
            }
            if (s == null) {
                notStarted.add(j);
                decision.waiting(j.id(), "no room for " + j.gpus() + " GPUs for its estimated " + minutes(j.estimatedRemainingSeconds())
                        + " within the " + minutes(h * step) + " horizon beside higher-value work and the inference reservation");
                continue;
            }
            if (s > 0) {
                notStarted.add(j);
                decision.waiting(j.id(), "planned to start in about " + minutes(s * step - ctx.now() % step)
                        + " when " + j.gpus() + " GPUs free up; higher-value work and the inference reservation hold them until then");
                continue;
            }
            Placement placement = placeByPreempting(occupancy, j, plan.gpusOf(j.id(), j.gpus()), fillPool, false, decision);
            if (placement == null) {
                notStarted.add(j);
                decision.waiting(j.id(), "fits by count but no node has a contiguous block of " + j.gpus() + " free GPUs yet");
                continue;
            }
            occupancy.occupy(placement);
            decision.start(j.id(), placement, false);
        }
        // value preemption: a waiting resumable job takes GPUs from running work it outranks that its
        // contract leaves preemptible (resumable, past its minimum runtime); it starts as fill and is
        // promoted to protected on a later plan when the protected capacity has room for it. Without
        // fair share, work that cannot resume starts only where the plan put it.
        List<RunningJob> preemptibleJobs = new ArrayList<>();
        for (RunningJob r : ctx.running()) {
            boolean fillStillThere = r.fill() && !decision.preemptions().contains(r.id()) && !promote.containsKey(r.id());
            if (r.placement().shared()) continue; // freeing one slice frees no GPU
            if (fillStillThere || (!r.fill() && r.contract().resumable() && !r.protectedAt(ctx.now()))) preemptibleJobs.add(r);
        }
        VictimPool preemptible = new VictimPool(preemptibleJobs, ctx.now());
        List<PendingJob> stillWaiting = new ArrayList<>();
        boolean nodesHeld = false;
        for (PendingJob j : notStarted) {
            // unallocated work outranks nobody: it only borrows idle GPUs, in the lending order below
            if (fillOnly.contains(j.id())) {
                stillWaiting.add(j);
                continue;
            }
            // under fair share, work inside its team's owed share is budgeted and runs protected
            // whether or not it can resume; it takes its GPUs from work it outranks
            boolean budgeted = given.fairShare() != null;
            Placement placement = j.contract().resumable() || budgeted ? placeByPreempting(occupancy, j, j.gpus(), preemptible, budgeted, decision) : null;
            if (placement == null) {
                if (budgeted && !nodesHeld && j.gpus() > cluster.largestNode() && j.arrivalSeconds() <= ctx.now() - WIDE_JOB_PATIENCE_SECONDS) {
                    holdNodesFor(j, occupancy, preemptible, ctx.running(), decision);
                    nodesHeld = true;
                }
                stillWaiting.add(j);
                continue;
            }
            occupancy.occupy(placement);
            decision.start(j.id(), placement, !budgeted);
            decision.waitReasons().remove(j.id());
        }
        // lend what protected work left idle to resumable jobs; inference takes it back when it needs it.
        // Under fair share the most under-served teams borrow first: idle GPUs are the only way a team
        // whose jobs do not fit its room catches up, and lending by user priority would hand them to
        // whichever team inflates its priorities.
        if (given.fairShare() != null) {
            Map<String, Double> ratio = given.fairShare().ratio();
            stillWaiting.sort(Comparator.comparingDouble((PendingJob j) -> Math.min(1, ratio.getOrDefault(j.team(), 1.0))).thenComparing(VALUE_ORDER));
        }
        for (PendingJob j : stillWaiting) {
            // fill must be cheap to take back; fair share's unallocated work is fill whatever it loses
            if (!j.contract().resumable() && !fillOnly.contains(j.id())) continue;
            Placement placement = null;
            for (int width : j.allowedSizes()) {
                placement = occupancy.findBlock(width);
                if (placement != null) break;
            }
            if (placement == null) continue;
            occupancy.occupy(placement);
            decision.start(j.id(), placement, true);
            decision.waitReasons().remove(j.id());
        }
        return decision;
    }

    /**
     * Commits what the slice placer found: a start, or a re-partitioning the job waits for (the GPU is held for it), or,
     * when always is set, the wait with its reason. Returns whether the job was dealt with.
     */
    private static boolean applySlices(SlicePlacer.Outcome o, PendingJob j, Occupancy occupancy, Decision decision, boolean always) {
        if (o.placement() != null) {
            occupancy.occupy(o.placement());
            decision.start(j.id(), o.placement(), false);
            decision.waitReasons().remove(j.id());
            return true;
        }
        if (o.reconfigure() != null) {
            occupancy.markReconfiguring(o.reconfigure().node(), o.reconfigure().gpu(), o.reconfigure().layout());
            decision.reconfigure(o.reconfigure());
            decision.waiting(j.id(), o.reason());
            return true;
        }
        if (o.awaitsLayout()) {
            decision.waiting(j.id(), o.reason());
            return true;
        }
        if (always) decision.waiting(j.id(), o.reason());
        return always;
    }

    /**
     * GPUs that hold slices serve no whole-GPU work: a partitioned (or re-partitioning) GPU for the whole horizon, since
     * only a planned re-partitioning frees it; a time-shared GPU until the last share on it is estimated to end.
     */
    private static void reserveSharedGpus(PlanningContext ctx, int[] capacity, int[][] nodeFree) {
        int h = capacity.length;
        Map<Long, Integer> ends = new HashMap<>();
        for (RunningJob r : ctx.running()) {
            if (!r.placement().shared()) continue;
            int end = stepsUntil(ctx, r.estimatedEndSeconds(), h);
            for (Placement.Slice s : r.placement().slices()) ends.merge(((long) s.node() << 8) | s.firstGpu(), end, Math::max);
        }
        Occupancy o = ctx.occupancy();
        for (int[] gpu : o.fractionalGpus()) {
            int n = gpu[0], g = gpu[1];
            int end = o.migLayout(n, g) != null || o.isReconfiguring(n, g) ? h : ends.getOrDefault(((long) n << 8) | g, 1);
            for (int t = 0; t < end; t++) capacity[t]--;
            for (int t = 1; t < end; t++) nodeFree[n][t]--;
        }
    }

    /**
     * A block of {@code gpus} for j: a free one, else one freed by preempting the cheapest of the
     * victims j outranks on a single node. Victims taken are removed from the pool.
     */
    private static Placement placeByPreempting(Occupancy occupancy, PendingJob j, int gpus, VictimPool pool, boolean budgeted,
                                               Decision decision) {
        Placement free = occupancy.findBlock(gpus);
        if (free != null) return free;
        if (gpus > occupancy.cluster().largestNode()) return placeWideByPreempting(occupancy, j, gpus, pool, budgeted, decision);
        if (!pool.hasOutrankedBy(j.weight())) return null;
        int nodes = occupancy.cluster().nodes().size();
        List<RunningJob> bestVictims = null;
        int bestNode = -1;
        double bestCost = Double.MAX_VALUE;
        for (int n = 0; n < nodes; n++) {
            List<RunningJob> onNode = pool.onNode(n);
            if (onNode.isEmpty()) continue;
            int available = occupancy.freeOn(n);
            for (RunningJob r : onNode) if (outranks(j.weight(), r.weight())) available += r.gpus();
            if (available < gpus) continue;
            Occupancy trial = occupancy.copy();
            boolean[] only = new boolean[nodes];
            only[n] = true;
            List<RunningJob> victims = new ArrayList<>();
            double cost = 0;
            for (RunningJob v : onNode) {
                if (!outranks(j.weight(), v.weight()) || trial.findBlock(gpus, only) != null) break;
                trial.release(v.placement());
                victims.add(v);
                cost += v.weight() * v.gpus();
            }
            if (cost < bestCost && trial.findBlock(gpus, only) != null) {
                bestCost = cost;
                bestVictims = victims;
                bestNode = n;
            }
        }
        if (bestVictims == null) return null;
        for (RunningJob v : bestVictims) {
            occupancy.release(v.placement());
            pool.remove(bestNode, v);
            decision.preempt(v.id());
        }
        boolean[] only = new boolean[nodes];
        only[bestNode] = true;
        return occupancy.findBlock(gpus, only);
    }

    /**
     * For a job wider than a node: the cheapest victims it outranks, anywhere, until whole nodes free
     * up. A wide job that has waited an hour while at least half its GPUs stand idle, or that is
     * inside its team's owed share, may also take them from work that does not outrank it: scattered
     * small jobs would otherwise keep it out for good, and they resume elsewhere at the cost of a
     * checkpoint.
     */
    private static Placement placeWideByPreempting(Occupancy occupancy, PendingJob j, int gpus, VictimPool pool, boolean budgeted,
                                                   Decision decision) {
        boolean starving = j.arrivalSeconds() <= pool.now - WIDE_JOB_PATIENCE_SECONDS && occupancy.totalFree() * 2 >= gpus;
        java.util.function.DoublePredicate eligible = starving ? w -> !outranks(w, j.weight()) : w -> outranks(j.weight(), w);
        Occupancy trial = occupancy.copy();
        List<RunningJob> victims = new ArrayList<>();
        for (RunningJob v : pool.cheapest(eligible)) {
            trial.release(v.placement());
            victims.add(v);
            if (trial.findBlock(gpus) != null) {
                for (RunningJob taken : victims) {
                    occupancy.release(taken.placement());
                    pool.remove(taken);
                    decision.preempt(taken.id());
                }
                return occupancy.findBlock(gpus);
            }
        }
        return null;
    }

    /**
     * A wide budgeted job that still finds no whole nodes after preemption is kept out by work that
     * may not be preempted (inside its minimum runtime, unable to resume, or outranking it), scattered
     * over every node. Hold the nodes with the least of that work: nothing new starts there in this
     * decision, so they empty as that work ends, instead of refilling with more small jobs.
     */
    private static void holdNodesFor(PendingJob j, Occupancy occupancy, VictimPool pool, List<RunningJob> running, Decision decision) {
        int nodes = occupancy.cluster().nodes().size();
        int[] stuck = new int[nodes];
        java.util.Set<String> movable = new java.util.HashSet<>();
        pool.cheapest(w -> !outranks(w, j.weight())).forEach(r -> movable.add(r.id()));
        for (RunningJob r : running) {
            if (movable.contains(r.id()) || decision.preemptions().contains(r.id())) continue;
            for (Placement.Slice s : r.placement().slices()) stuck[s.node()] += s.count();
        }
        Integer[] order = new Integer[nodes];
        for (int n = 0; n < nodes; n++) order[n] = n;
        java.util.Arrays.sort(order, Comparator.comparingInt((Integer n) -> stuck[n]).thenComparingInt(n -> n));
        int left = j.gpus();
        for (int k = 0; k < nodes && left > 0; k++) {
            occupancy.drain(order[k]);
            left -= occupancy.cluster().nodes().get(order[k]).gpus();
        }
        decision.waiting(j.id(), "waiting for whole nodes: the emptiest ones are held for it, no new work starts there");
    }

    /** Running jobs that may be preempted, by node, cheapest first; jobs spanning nodes only make room for wide jobs. */
    private static final class VictimPool {
        private static final Comparator<RunningJob> CHEAPEST = Comparator.comparingDouble(RunningJob::weight)
                .thenComparing(Comparator.comparingLong(RunningJob::startSeconds).reversed()).thenComparing(RunningJob::id);
        private final Map<Integer, List<RunningJob>> byNode = new HashMap<>();
        private final List<RunningJob> spanning = new ArrayList<>();
        private double lowestWeight = Double.MAX_VALUE;

        private final long now;

        VictimPool(List<RunningJob> victims, long now) {
            this.now = now;
            for (RunningJob r : victims) {
                int node = r.placement().slices().get(0).node();
                if (r.placement().slices().stream().anyMatch(s -> s.node() != node)) {
                    spanning.add(r);
                    lowestWeight = Math.min(lowestWeight, r.weight());
                    continue;
                }
                byNode.computeIfAbsent(node, k -> new ArrayList<>()).add(r);
                lowestWeight = Math.min(lowestWeight, r.weight());
            }
            byNode.values().forEach(l -> l.sort(CHEAPEST));
        }

        boolean hasOutrankedBy(double weight) {
            return outranks(weight, lowestWeight);
        }

        List<RunningJob> onNode(int node) {
            return byNode.getOrDefault(node, List.of());
        }

        void remove(int node, RunningJob r) {
            byNode.get(node).remove(r);
        }

        void remove(RunningJob r) {
            if (!spanning.remove(r)) remove(r.placement().slices().get(0).node(), r);
        }

        /** Every victim whose weight passes {@code eligible}, cheapest first across nodes. */
        List<RunningJob> cheapest(java.util.function.DoublePredicate eligible) {
            List<RunningJob> all = new ArrayList<>();
            byNode.values().forEach(l -> l.stream().filter(r -> eligible.test(r.weight())).forEach(all::add));
            spanning.stream().filter(r -> eligible.test(r.weight())).forEach(all::add);
            all.sort(CHEAPEST);
            return all;
        }
    }

    /**
     * Work on a drained (unhealthy) node leaves once its contract allows: outside its minimum runtime
     * it is preempted to restart elsewhere. The returned moment no longer counts it as running.
     */
    private static PlanningContext leaveDrainedNodes(PlanningContext ctx, Decision decision) {
        List<RunningJob> staying = new ArrayList<>();
        for (RunningJob r : ctx.running()) {
            boolean onDrained = r.placement().slices().stream().anyMatch(s -> ctx.occupancy().isDrained(s.node()));
            if (onDrained && !r.protectedAt(ctx.now())) {
                decision.preempt(r.id());
                ctx.occupancy().release(r.placement());
            } else {
                staying.add(r);
            }
        }
        return staying.size() == ctx.running().size() ? ctx : ctx.withJobs(staying, ctx.pending());
    }

    private static String owedOf(PlanningContext ctx, String team) {
        return String.format("%.1f", ctx.fairShare().owedNow().getOrDefault(team, 0.0));
    }

    /**
     * Whether work of weight {@code preemptor} may take GPUs from work of weight {@code victim}: only
     * across a whole unit of weight. Integer weights (priority classes) compare as usual; fractional
     * parts (user priority inside a fair-share tier) order work but never preempt.
     */
    public static boolean outranks(double preemptor, double victim) {
        return Math.floor(victim) + 1 <= Math.floor(preemptor);
    }

    private static int stepsUntil(PlanningContext ctx, long endSeconds, int h) {
        long stepStart = ctx.stepIndex() * ctx.stepSeconds();
        long steps = (endSeconds - stepStart + ctx.stepSeconds() - 1) / ctx.stepSeconds();
        return (int) Math.max(1, Math.min(h, steps));
    }

    static String minutes(long seconds) {
        return seconds >= 5400 ? String.format("%.1f h", seconds / 3600.0) : (seconds + 59) / 60 + " min";
    }
}
