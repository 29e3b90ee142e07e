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
import java.util.List;

/**
 * Priority order with preemption, as KAI-Scheduler and Volcano do it: the highest-priority job that
 * fits starts; one that does not fit preempts running preemptible (resumable) jobs of strictly lower
 * priority past their minimum runtime. Inference holds its daily peak.
 */
public final class PriorityPreemptionPolicy extends PeakReservingPolicy {
    @Override
    public String name() {
        return "priority";
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        Decision decision = new Decision();
        List<PendingJob> queue = new ArrayList<>(ctx.pending());
        queue.sort(Comparator.comparingDouble(PendingJob::weight).reversed().thenComparing(FifoPolicy.ARRIVAL_ORDER));
        List<RunningJob> victimsLeft = new ArrayList<>(ctx.running());
        victimsLeft.removeIf(r -> !r.contract().resumable() || r.protectedAt(ctx.now()));
        victimsLeft.sort(Comparator.comparingDouble(RunningJob::weight).thenComparing(Comparator.comparingLong(RunningJob::startSeconds).reversed()));
        int partition = PeakReservation.batchPartition(ctx);
        Occupancy occupancy = ctx.occupancy();
        for (PendingJob j : queue) {
            if (j.gpus() > partition) {
                decision.waiting(j.id(), "needs " + j.gpus() + " GPUs but only " + partition + " are outside the inference peak reservation");
                continue;
            }
            Placement p = occupancy.findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT);
            if (p == null) p = preemptFor(j, occupancy, victimsLeft, decision);
            if (p == null) {
                decision.waiting(j.id(), "no free GPUs and no lower-priority preemptible job to take them from");
                continue;
            }
            occupancy.occupy(p);
            decision.start(j.id(), p, false);
        }
        return decision;
    }

    /**
     * Releases the cheapest candidates of strictly lower weight (candidates are sorted cheapest
     * first) until j's block fits; preempts them and returns the block, or null when they cannot.
     */
    static Placement preemptFor(PendingJob j, Occupancy occupancy, List<RunningJob> candidates, Decision decision) {
        Occupancy trial = occupancy.copy();
        List<RunningJob> taken = new ArrayList<>();
        for (RunningJob v : candidates) {
            if (v.weight() >= j.weight()) break;
            trial.release(v.placement());
            taken.add(v);
            if (trial.findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT) != null) {
                for (RunningJob t : taken) {
                    occupancy.release(t.placement());
                    decision.preempt(t.id());
                }
                candidates.removeAll(taken);
                return occupancy.findBlock(j.gpus(), j.rules(), NodeOrder.BEST_FIT);
            }
        }
        return null;
    }
}
