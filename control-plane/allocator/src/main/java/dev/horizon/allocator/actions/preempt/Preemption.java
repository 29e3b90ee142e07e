package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.Occupancy;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.actions.Ranking;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoublePredicate;

/** Finds GPUs for one job, freeing them from victims it may take them from when none are free. */
public final class Preemption {
    /** How long a wide job waits before it may take GPUs from work that does not outrank it. */
    public static final long WIDE_JOB_PATIENCE_SECONDS = 3600;

    private Preemption() {
    }

    /**
     * A block of {@code gpus} for j: a free one, else one freed by preempting the cheapest of the
     * victims j outranks on a single node. Victims taken are removed from the pool.
     */
    public static Placement place(Occupancy occupancy, PendingJob j, int gpus, VictimPool pool, boolean budgeted, Decision decision) {
        Placement free = occupancy.findBlock(gpus);
        if (free != null) return free;
        if (gpus > occupancy.cluster().largestNode()) return placeWide(occupancy, j, gpus, pool, budgeted, decision);
        if (!pool.hasOutrankedBy(j.weight())) return null;
        int nodes = occupancy.cluster().nodes().size();
        List<RunningJob> bestVictims = null;
        int bestNode = -1;
        double bestCost = Double.MAX_VALUE;
        for (int n = 0; n < nodes; n++) {
            List<RunningJob> onNode = pool.onNode(n);
            if (onNode.isEmpty()) continue;
            int available = occupancy.freeOn(n);
            for (RunningJob r : onNode) if (Ranking.outranks(j.weight(), r.weight())) available += r.gpus();
            if (available < gpus) continue;
            Occupancy trial = occupancy.copy();
            boolean[] only = new boolean[nodes];
            only[n] = true;
            List<RunningJob> victims = new ArrayList<>();
            double cost = 0;
            for (RunningJob v : onNode) {
                if (!Ranking.outranks(j.weight(), v.weight()) || trial.findBlock(gpus, only) != null) break;
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
    private static Placement placeWide(Occupancy occupancy, PendingJob j, int gpus, VictimPool pool, boolean budgeted, Decision decision) {
        boolean starving = j.arrivalSeconds() <= pool.now() - WIDE_JOB_PATIENCE_SECONDS && occupancy.totalFree() * 2 >= gpus;
        DoublePredicate eligible = starving ? w -> !Ranking.outranks(w, j.weight()) : w -> Ranking.outranks(j.weight(), w);
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
}
