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
import java.util.function.Function;

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
    private final double decayPerStep;
    private final Function<PlanProblem, Plan> planner;
    private final String name;

    public HorizonPolicy() {
        this("horizon", 0.99, new HeuristicPlanner()::plan);
    }

    public HorizonPolicy(String name, double decayPerStep, Function<PlanProblem, Plan> planner) {
        this.name = name;
        this.decayPerStep = decayPerStep;
        this.planner = planner;
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
    public Decision decide(PlanningContext ctx) {
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
        // fill work that now fits in protected capacity for its whole estimated run becomes protected
        fill.sort(Comparator.comparingDouble(RunningJob::weight).reversed().thenComparingLong(RunningJob::startSeconds));
        for (RunningJob r : fill) {
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
        for (PendingJob j : pending) {
            int d = (int) Math.max(1, Math.min(h, (j.estimatedRemainingSeconds() + step - 1) / step));
            jobs.add(new PlanProblem.Job(j.id(), j.weight(), j.gpus(), d, j.minGpus()));
        }
        PlanProblem problem = new PlanProblem(h, decayPerStep, nodeSizes, capacity, nodeFree, jobs);
        Plan plan = planner.apply(problem);

        Decision decision = new Decision();
        decision.planObjective(plan.objective());
        promote.keySet().forEach(decision::promote);
        Occupancy occupancy = ctx.occupancy();
        List<RunningJob> fillLeft = new ArrayList<>(fill);
        fillLeft.removeIf(r -> promote.containsKey(r.id()));
        List<PendingJob> notStarted = new ArrayList<>();
        for (PendingJob j : pending) {
            Integer s = plan.startStep().get(j.id());
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
            Placement placement = placeByPreempting(occupancy, j, plan.gpusOf(j.id(), j.gpus()), fillLeft, decision);
            if (placement == null) {
                notStarted.add(j);
                decision.waiting(j.id(), "fits by count but no node has a contiguous block of " + j.gpus() + " free GPUs yet");
                continue;
            }
            occupancy.occupy(placement);
            decision.start(j.id(), placement, false);
        }
        // value preemption: a waiting job takes GPUs from running work of lower weight that its contract
        // leaves preemptible (resumable, past its minimum runtime); it starts as fill and is promoted to
        // protected on a later plan when the protected capacity has room for it
        List<RunningJob> preemptible = new ArrayList<>(fillLeft);
        for (RunningJob r : ctx.running()) {
            if (!r.fill() && r.contract().resumable() && !r.protectedAt(ctx.now())) preemptible.add(r);
        }
        List<PendingJob> stillWaiting = new ArrayList<>();
        for (PendingJob j : notStarted) {
            Placement placement = preemptible.isEmpty() ? null : placeByPreempting(occupancy, j, j.gpus(), preemptible, decision);
            if (placement == null) {
                stillWaiting.add(j);
                continue;
            }
            occupancy.occupy(placement);
            decision.start(j.id(), placement, j.contract().resumable());
            decision.waitReasons().remove(j.id());
        }
        // lend what protected work left idle to resumable jobs; inference takes it back when it needs it
        for (PendingJob j : stillWaiting) {
            if (!j.contract().resumable()) continue;
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
     * A block for j: a free one, else one freed by preempting the cheapest of {@code candidates} with
     * a lower weight than j's, all on one node. Victims are removed from {@code candidates}.
     */
    private static Placement placeByPreempting(Occupancy occupancy, PendingJob j, int gpus, List<RunningJob> candidates, Decision decision) {
        Placement free = occupancy.findBlock(gpus);
        if (free != null || gpus > occupancy.cluster().largestNode()) return free;
        int nodes = occupancy.cluster().nodes().size();
        List<RunningJob> bestVictims = null;
        int bestNode = -1;
        double bestCost = Double.MAX_VALUE;
        for (int n = 0; n < nodes; n++) {
            final int node = n;
            List<RunningJob> onNode = new ArrayList<>(candidates.stream()
                    .filter(r -> r.weight() < j.weight() && r.placement().slices().stream().allMatch(s -> s.node() == node))
                    .sorted(Comparator.comparingDouble(RunningJob::weight).thenComparing(Comparator.comparingLong(RunningJob::startSeconds).reversed()))
                    .toList());
            int available = occupancy.freeOn(n) + onNode.stream().mapToInt(RunningJob::gpus).sum();
            if (available < gpus) continue;
            Occupancy trial = occupancy.copy();
            boolean[] only = new boolean[nodes];
            only[n] = true;
            List<RunningJob> victims = new ArrayList<>();
            double cost = 0;
            for (RunningJob v : onNode) {
                if (trial.findBlock(gpus, only) != null) break;
                trial.release(v.placement());
                victims.add(v);
                cost += v.weight() * v.gpus();
            }
            if (trial.findBlock(gpus, only) != null && cost < bestCost) {
                bestCost = cost;
                bestVictims = victims;
                bestNode = n;
            }
        }
        if (bestVictims == null) return null;
        for (RunningJob v : bestVictims) {
            occupancy.release(v.placement());
            candidates.remove(v);
            decision.preempt(v.id());
        }
        boolean[] only = new boolean[nodes];
        only[bestNode] = true;
        return occupancy.findBlock(gpus, only);
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
