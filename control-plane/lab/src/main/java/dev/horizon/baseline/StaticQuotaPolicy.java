package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Static per-team quotas: each team may hold at most its budgeted fraction of the cluster's GPUs,
 * first come first served inside the team, and never borrows what other teams leave idle (the
 * "monopolies" Ai2 saw sit idle).
 */
public final class StaticQuotaPolicy extends PeakReservingPolicy {
    @Override
    public String name() {
        return "quota";
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        if (ctx.fairShare() == null) throw new IllegalStateException("the quota policy needs budgets (a fair-share scenario)");
        Decision decision = new Decision();
        int total = PeakReservation.batchPartition(ctx);
        Map<String, Integer> used = new HashMap<>();
        for (RunningJob r : ctx.running()) used.merge(r.team(), r.gpus(), Integer::sum);
        List<PendingJob> queue = new ArrayList<>(ctx.pending());
        queue.sort(FifoPolicy.ARRIVAL_ORDER);
        for (PendingJob j : queue) {
            int quota = (int) Math.floor(ctx.fairShare().tree().clusterFraction(j.team()) * total + 1e-9);
            if (used.getOrDefault(j.team(), 0) + j.gpus() > quota) {
                decision.waiting(j.id(), "team " + j.team() + " is at its quota of " + quota + " GPUs");
                continue;
            }
            Placement p = ctx.occupancy().findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT);
            if (p == null) {
                decision.waiting(j.id(), "no block of " + j.gpus() + " free GPUs");
                continue;
            }
            ctx.occupancy().occupy(p);
            used.merge(j.team(), j.gpus(), Integer::sum);
            decision.start(j.id(), p, false);
        }
        return decision;
    }
}
