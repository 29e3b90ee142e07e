package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
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
     * What {@link #place} reads of the job it places: two jobs that ask the same get the same answer from the same
     * occupancy and pool (weights matter only by whole units, see {@link Ranking#outranks}; arrival only by whether a wide
     * job has waited its patience). Its estimate and planned start enter only through its {@link Price}, which decides
     * which of the victim sets the search finds are paid for, never which sets it finds. A rule that reads more of the job
     * must add it here.
     */
    public record Ask(int gpus, PlacementRules rules, double weightUnit, boolean patient) {
        public static Ask of(PendingJob j, int gpus, VictimPool pool) {
            return new Ask(gpus, j.rules(), Math.floor(j.weight()), j.arrivalSeconds() <= pool.now() - WIDE_JOB_PATIENCE_SECONDS);
        }

        /**
         * Hashed on the rules' scalars, not their GPU models: it is asked for every waiting job at every decision, and
         * the few asks that differ only by models are told apart by equals.
         */
        @Override
        public int hashCode() {
            return Integer.hashCode(gpus) * 31 + Double.hashCode(weightUnit) * 17 + (patient ? 1 : 0) + PlacementRules.scalarHash(rules) * 7;
        }
    }

    /**
     * GPUs of {@code gpus} for j under its rules: free ones, else ones freed by preempting the cheapest of the victims j
     * outranks on a single node, or for a job no one node can hold, anywhere, where the price says the victims lose less
     * than j gains. Only victims on the GPUs j gets are preempted; they are removed from the pool.
     */
    public static Placement place(Occupancy occupancy, PendingJob j, int gpus, VictimPool pool, Decision decision, Price price) {
        Placement free = occupancy.findBlock(gpus, j.rules(), NodeOrder.BEST_FIT);
        if (free != null) return free;
        if (!occupancy.fitsOneNode(gpus, j.rules())) return placeWide(occupancy, j, gpus, pool, decision, price);
        if (!pool.hasOutrankedBy(j.weight())) return null;
        int nodes = occupancy.cluster().nodes().size();
        Placement best = null;
        List<RunningJob> bestVictims = null;
        double bestCost = Double.MAX_VALUE;
        // each node's victims are released on the occupancy itself and put back before the next node is tried
        Occupancy.Undo undo = new Occupancy.Undo();
        for (int n = 0; n < nodes; n++) {
            List<RunningJob> onNode = pool.onNode(n);
            if (onNode.isEmpty() || !j.rules().accepts(occupancy.cluster().nodes().get(n).gpuModel())) continue;
            int available = occupancy.freeOn(n);
            for (RunningJob r : onNode) if (Ranking.outranks(j.weight(), r.weight())) available += r.gpus();
            if (available < gpus) continue;
            List<RunningJob> victims = new ArrayList<>();
            Placement block = null;
            try {
                for (RunningJob v : onNode) {
                    if (!Ranking.outranks(j.weight(), v.weight()) || (block = blockOn(occupancy, n, j, gpus)) != null) break;
                    occupancy.release(v.placement(), undo);
                    victims.add(v);
                }
                if (block == null) block = blockOn(occupancy, n, j, gpus);
            } finally {
                occupancy.undo(undo);
            }
            if (block == null) continue;
            List<RunningJob> needed = overlapping(victims, block);
            if (!price.pays(needed)) continue;
            double cost = needed.stream().mapToDouble(v -> v.weight() * v.gpus()).sum();
            if (cost < bestCost) {
                bestCost = cost;
                bestVictims = needed;
                best = block;
            }
        }
        return best == null ? null : take(occupancy, best, bestVictims, pool, decision, price.taken(j, bestVictims));
    }

    /**
     * The job's block on node n alone; null at once while the node has fewer free GPUs than it asks, where no search can
     * find one (asking after every victim released made a search per victim per node), and a search of that node alone:
     * one that walked every node made this pass's cost grow with the square of the cluster.
     */
    private static Placement blockOn(Occupancy trial, int n, PendingJob j, int gpus) {
        return trial.freeOn(n) < gpus ? null : trial.findBlockOn(n, gpus, j.rules(), NodeOrder.BEST_FIT);
    }

    /**
     * For a job no one node can hold: the cheapest victims it outranks, anywhere, until its GPUs free
     * up. A wide job that has waited an hour while at least half its GPUs stand idle, or that is
     * inside its team's owed share, may also take them from work that does not outrank it: scattered
     * small jobs would otherwise keep it out for good, and they resume elsewhere at the cost of a
     * checkpoint. The first victims that free a block are taken only where they pay their price.
     */
    private static Placement placeWide(Occupancy occupancy, PendingJob j, int gpus, VictimPool pool, Decision decision, Price price) {
        boolean starving = j.arrivalSeconds() <= pool.now() - WIDE_JOB_PATIENCE_SECONDS && occupancy.totalFree() * 2 >= gpus;
        DoublePredicate eligible = starving ? w -> !Ranking.outranks(w, j.weight()) : w -> Ranking.outranks(j.weight(), w);
        Occupancy trial = occupancy.copy();
        List<RunningJob> victims = new ArrayList<>();
        for (RunningJob v : pool.cheapest(eligible)) {
            if (!onAcceptedNodes(occupancy, v, j) || (starving && !outranksOrIsWider(occupancy, j, v))) continue;
            trial.release(v.placement());
            victims.add(v);
            Placement block = trial.findBlock(gpus, j.rules(), NodeOrder.BEST_FIT);
            if (block == null) continue;
            List<RunningJob> needed = overlapping(victims, block);
            return price.pays(needed) ? take(occupancy, block, needed, pool, decision, price.taken(j, needed)) : null;
        }
        return null;
    }

    /**
     * Whether a starving wide job may take a victim it does not outrank: only work narrower than itself and than a node,
     * the scattered small jobs the rule is for. Taking an equal-ranked gang as wide as itself only moves the wait onto
     * that gang, which then starves and takes its GPUs back (two 16-GPU jobs of one weight took each other's GPUs five
     * times in ten minutes on wide-gangs seed 68); a job holding a whole node waits as long to start again.
     */
    private static boolean outranksOrIsWider(Occupancy occupancy, PendingJob j, RunningJob v) {
        return Ranking.outranks(j.weight(), v.weight()) || v.gpus() < Math.min(j.gpus(), occupancy.cluster().largestNode());
    }

    /** Preempts the victims, each told why, and gives the job its block. */
    private static Placement take(Occupancy occupancy, Placement block, List<RunningJob> victims, VictimPool pool, Decision decision, String why) {
        for (RunningJob v : victims) {
            occupancy.release(v.placement());
            pool.remove(v);
            decision.preempt(v.id(), why);
        }
        return block;
    }

    /** The victims that hold a GPU of the block: the others keep running. */
    private static List<RunningJob> overlapping(List<RunningJob> victims, Placement block) {
        List<RunningJob> out = new ArrayList<>();
        for (RunningJob v : victims) if (v.placement().overlaps(block)) out.add(v);
        return out;
    }

    /** Whether the victim holds GPUs of a model the job accepts (others free nothing it could use). */
    private static boolean onAcceptedNodes(Occupancy occupancy, RunningJob v, PendingJob j) {
        return v.placement().slices().stream().anyMatch(s -> j.rules().accepts(occupancy.cluster().nodes().get(s.node()).gpuModel()));
    }
}
