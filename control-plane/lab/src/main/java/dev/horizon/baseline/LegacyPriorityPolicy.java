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
import java.util.List;
import java.util.Map;

/**
 * Ai2's scheduler before fair share, as their paper describes it: jobs go by user priority; a job at
 * the top priority opts out of preemption, up to a per-team cap of non-preemptible GPUs (the team's
 * budgeted fraction of the cluster); everything else may be preempted by a higher priority once past its minimum
 * runtime (the contract every policy here keeps). Users
 * inflate priorities, so the cap is what keeps one team from holding everything.
 */
public final class LegacyPriorityPolicy extends PeakReservingPolicy {
    /** The priority at which users opt out of preemption. */
    public static final double TOP_PRIORITY = 3;

    @Override
    public String name() {
        return "legacy";
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        if (ctx.fairShare() == null) throw new IllegalStateException("the legacy policy needs budgets (a fair-share scenario)");
        Decision decision = new Decision();
        Occupancy occupancy = ctx.occupancy();
        int total = ctx.cluster().totalGpus();
        Map<String, Integer> pinned = new HashMap<>();
        List<RunningJob> preemptible = new ArrayList<>();
        List<RunningJob> byStart = new ArrayList<>(ctx.running());
        byStart.sort(Comparator.comparingLong(RunningJob::startSeconds).thenComparing(RunningJob::id));
        for (RunningJob r : byStart) {
            if (optsOut(ctx, r.team(), r.weight(), r.gpus(), pinned, total)) pinned.merge(r.team(), r.gpus(), Integer::sum);
            else if (!r.protectedAt(ctx.now())) preemptible.add(r);
        }
        preemptible.sort(Comparator.comparingDouble(RunningJob::weight).thenComparing(Comparator.comparingLong(RunningJob::startSeconds).reversed()));
        List<PendingJob> queue = new ArrayList<>(ctx.pending());
        queue.sort(Comparator.comparingDouble(PendingJob::weight).reversed().thenComparing(FifoPolicy.ARRIVAL_ORDER));
        for (PendingJob j : queue) {
            Placement p = occupancy.findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT);
            if (p == null) p = PriorityPreemptionPolicy.preemptFor(j, occupancy, preemptible, decision);
            if (p == null) {
                decision.waiting(j.id(), "no free GPUs and no lower-priority preemptible job to take them from");
                continue;
            }
            occupancy.occupy(p);
            decision.start(j.id(), p, false);
            if (optsOut(ctx, j.team(), j.weight(), j.gpus(), pinned, total)) pinned.merge(j.team(), j.gpus(), Integer::sum);
        }
        return decision;
    }

    private static boolean optsOut(PlanningContext ctx, String team, double priority, int gpus, Map<String, Integer> pinned, int total) {
        double cap = ctx.fairShare().tree().clusterFraction(team) * total;
        return priority >= TOP_PRIORITY && pinned.getOrDefault(team, 0) + gpus <= cap;
    }
}
