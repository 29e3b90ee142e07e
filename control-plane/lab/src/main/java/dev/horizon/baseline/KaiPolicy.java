package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NVIDIA KAI-Scheduler's model (https://github.com/NVIDIA/KAI-Scheduler, docs/fairness, docs/plugins/minruntime.md):
 * a queue per team with quota = its share of the GPUs and over-quota weight = its share; each cycle the fair share of
 * every queue is computed (quota first, the rest by over-quota weight), then the actions run in KAI's order:
 * allocate (queues furthest below their fair share first, jobs by priority then arrival, gangs all-or-nothing,
 * bin-packing onto the fullest node), consolidation (move running resumable work to make a waiting job fit, only when
 * every moved job lands again at once), reclaim (a queue below its fair share takes GPUs from queues above theirs,
 * while it stays below them), preempt (a job takes GPUs from lower-priority work of its own queue). The min-runtime
 * plugin protects each job for its contract's minimum runtime from reclaim and preemption. Elastic jobs start on as
 * few as their minimum. A time-slice share is placed as KAI's gpu-fraction (docs/gpu-sharing: a fraction of one GPU
 * beside other fractions, without isolation), a MIG profile on the static layout's instances ({@link DevicePluginSlices}).
 * Inference is autoscaled ({@link AutoscaledInference}).
 */
public final class KaiPolicy extends AutoscaledInference {
    private final TeamShares shares = new TeamShares();

    public KaiPolicy() {
        this(HpaSettings.DEFAULT);
    }

    /** With the inference autoscaler set as given (the bench calibrates it to a service level, see bench/SloCalibration). */
    public KaiPolicy(HpaSettings hpa) {
        super(hpa);
    }

    @Override
    public String name() {
        return "kai";
    }

    /** One cycle's accounting: each queue's fair share and what it holds now. */
    private static final class Queues {
        final Map<String, Double> fair;
        final Map<String, Double> allocated = new HashMap<>();

        Queues(Map<String, Double> fair, List<RunningJob> running) {
            this.fair = fair;
            for (RunningJob r : running) allocated.merge(r.team(), (double) r.gpus(), Double::sum);
        }

        double ratio(String team, double plus) {
            double f = fair.getOrDefault(team, 0.0);
            double a = allocated.getOrDefault(team, 0.0) + plus;
            return f <= 1e-9 ? (a <= 1e-9 ? 0 : Double.MAX_VALUE) : a / f;
        }
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        Decision decision = new Decision();
        Occupancy occupancy = ctx.occupancy();
        int inference = ctx.services().values().stream().mapToInt(PlanningContext.ServiceView::heldGpus).sum();
        Map<String, Double> demand = new HashMap<>();
        ctx.running().forEach(r -> demand.merge(r.team(), (double) r.gpus(), Double::sum));
        ctx.pending().forEach(j -> demand.merge(j.team(), (double) j.gpus(), Double::sum));
        Queues queues = new Queues(TeamShares.fairShares(ctx.cluster().totalGpus() - inference, shares.of(ctx), demand), ctx.running());
        List<PendingJob> waiting = allocate(ctx, queues, decision);
        List<RunningJob> movable = new ArrayList<>(ctx.running());
        movable.removeIf(r -> r.protectedAt(ctx.now()) || r.placement().shared());
        movable.sort(AutoscaledInference.LOWEST_PRIORITY_NEWEST_FIRST);
        waiting.removeIf(j -> consolidate(j, occupancy, movable, decision));
        for (PendingJob j : waiting) {
            Placement p = reclaim(j, ctx, queues, movable, decision);
            if (p == null) p = preempt(j, occupancy, movable, decision);
            if (p == null) {
                decision.waiting(j.id(), "queue " + j.team() + " at " + String.format("%.1f", queues.allocated.getOrDefault(j.team(), 0.0))
                        + " of its fair share " + String.format("%.1f", queues.fair.getOrDefault(j.team(), 0.0))
                        + " GPUs; no room, nothing to reclaim or preempt for " + j.gpus() + " GPUs");
                continue;
            }
            start(j, p, occupancy, queues, decision);
        }
        return decision;
    }

    /** Allocate: the queue furthest below its fair share offers its next job (priority, then arrival) until none fits. */
    private static List<PendingJob> allocate(PlanningContext ctx, Queues queues, Decision decision) {
        Map<String, List<PendingJob>> byQueue = new LinkedHashMap<>();
        List<PendingJob> sorted = new ArrayList<>(ctx.pending());
        sorted.sort(Comparator.comparingDouble(PendingJob::weight).reversed().thenComparing(FifoPolicy.ARRIVAL_ORDER));
        for (PendingJob j : sorted) byQueue.computeIfAbsent(j.team(), k -> new ArrayList<>()).add(j);
        List<PendingJob> waiting = new ArrayList<>();
        while (!byQueue.isEmpty()) {
            String team = byQueue.keySet().stream().min(Comparator.comparingDouble((String t) -> queues.ratio(t, 0)).thenComparing(t -> t)).get();
            List<PendingJob> jobs = byQueue.get(team);
            PendingJob j = jobs.remove(0);
            if (jobs.isEmpty()) byQueue.remove(team);
            Placement p = null;
            for (int width : j.allowedSizes()) {
                p = DevicePluginSlices.place(j, width, ctx.occupancy(), NodeOrder.BEST_FIT, true);
                if (p != null) break;
            }
            if (p == null) waiting.add(j);
            else start(j, p, ctx.occupancy(), queues, decision);
        }
        return waiting;
    }

    /**
     * Consolidation: on the first node where moving resumable work (smallest first) makes room for j, move that work
     * elsewhere; only when every moved job gets a block elsewhere at once (it restarts there from its checkpoint).
     */
    private static boolean consolidate(PendingJob j, Occupancy occupancy, List<RunningJob> movable, Decision decision) {
        if (j.slice() != null || j.gpus() > occupancy.cluster().largestNode() || occupancy.totalFree() < j.gpus()) return false;
        int nodes = occupancy.cluster().nodes().size();
        for (int n = 0; n < nodes; n++) {
            if (occupancy.isDrained(n)) continue;
            final int node = n;
            List<RunningJob> onNode = new ArrayList<>(movable.stream().filter(r -> r.contract().resumable()
                    && r.placement().slices().stream().allMatch(s -> s.node() == node)).toList());
            onNode.sort(Comparator.comparingInt(RunningJob::gpus).thenComparing(RunningJob::id));
            boolean[] only = new boolean[nodes];
            only[n] = true;
            Occupancy trial = occupancy.copy();
            List<RunningJob> moved = new ArrayList<>();
            for (RunningJob r : onNode) {
                if (trial.findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT, only) != null) break;
                trial.release(r.placement());
                moved.add(r);
            }
            Placement target = trial.findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT, only);
            if (moved.isEmpty() || target == null) continue;
            trial.occupy(target);
            boolean[] elsewhere = new boolean[nodes];
            java.util.Arrays.fill(elsewhere, true);
            elsewhere[n] = false;
            Map<RunningJob, Placement> landing = new LinkedHashMap<>();
            for (RunningJob r : moved) {
                Placement p = trial.findBlock(r.gpus(), r.rules(), NodeOrder.BEST_FIT, elsewhere);
                if (p == null) break;
                trial.occupy(p);
                landing.put(r, p);
            }
            if (landing.size() < moved.size()) continue;
            for (RunningJob r : moved) {
                occupancy.release(r.placement());
                decision.preempt(r.id());
            }
            occupancy.occupy(target);
            decision.start(j.id(), target, false);
            landing.forEach((r, p) -> {
                occupancy.occupy(p);
                decision.start(r.id(), p, false);
            });
            movable.removeAll(moved);
            return true;
        }
        return false;
    }

    /**
     * Reclaim: a queue below its fair share takes GPUs from queues above theirs, the lowest priority first, as long as
     * after the move it is still below every queue it takes from (KAI's saturation-ratio rule).
     */
    private static Placement reclaim(PendingJob j, PlanningContext ctx, Queues queues, List<RunningJob> movable, Decision decision) {
        if (queues.ratio(j.team(), 0) >= 1) return null;
        double after = queues.ratio(j.team(), j.gpus());
        List<RunningJob> candidates = new ArrayList<>(movable);
        candidates.removeIf(r -> r.team().equals(j.team()) || queues.ratio(r.team(), 0) <= 1 || queues.ratio(r.team(), -r.gpus()) <= after);
        List<RunningJob> before = new ArrayList<>(candidates);
        Placement p = KubePreemption.freeFor(j.gpus(), j.rules(), NodeOrder.BEST_FIT, ctx.occupancy(), candidates, decision);
        if (p == null) return null;
        before.removeAll(candidates);
        before.forEach(v -> queues.allocated.merge(v.team(), (double) -v.gpus(), Double::sum));
        movable.removeAll(before);
        return p;
    }

    /** Preempt: within its own queue, a job takes GPUs from work of strictly lower priority. */
    private static Placement preempt(PendingJob j, Occupancy occupancy, List<RunningJob> movable, Decision decision) {
        List<RunningJob> candidates = new ArrayList<>(movable);
        candidates.removeIf(r -> !r.team().equals(j.team()) || r.weight() >= j.weight());
        List<RunningJob> before = new ArrayList<>(candidates);
        Placement p = KubePreemption.freeFor(j.gpus(), j.rules(), NodeOrder.BEST_FIT, occupancy, candidates, decision);
        if (p == null) return null;
        before.removeAll(candidates);
        movable.removeAll(before);
        return p;
    }

    private static void start(PendingJob j, Placement p, Occupancy occupancy, Queues queues, Decision decision) {
        occupancy.occupy(p);
        decision.start(j.id(), p, false);
        decision.waitReasons().remove(j.id());
        queues.allocated.merge(j.team(), (double) p.gpuCount(), Double::sum);
    }
}
