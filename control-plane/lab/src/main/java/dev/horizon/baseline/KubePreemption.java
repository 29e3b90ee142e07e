package dev.horizon.baseline;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.List;

/**
 * Frees GPUs for one waiting job by preempting running work, as kube-scheduler's preemption does: for a job that fits
 * on one node, the node whose victims (taken in the caller's order, cheapest first) make room with the least
 * important victims, then the fewest victim GPUs; for a job wider than a node, victims anywhere in order until whole
 * nodes free up. The caller has already filtered the candidates by its own rules (priority, queues, minimum runtime).
 */
final class KubePreemption {
    private KubePreemption() {
    }

    /**
     * Preempts the victims that make room for {@code gpus} and returns the block (not yet occupied), or null when the
     * candidates cannot make room; taken victims leave {@code candidates}.
     */
    static Placement freeFor(int gpus, PlacementRules rules, NodeOrder order, Occupancy occupancy, List<RunningJob> candidates, Decision decision) {
        Placer placer = (o, g, allowed) -> o.findBlock(g, rules, order, allowed);
        List<RunningJob> victims = gpus <= occupancy.cluster().largestNode() ? onOneNode(gpus, occupancy, candidates, placer)
                : anywhere(gpus, occupancy, candidates, placer);
        if (victims == null) return null;
        for (RunningJob v : victims) {
            occupancy.release(v.placement());
            decision.preempt(v.id());
        }
        candidates.removeAll(victims);
        return placer.place(occupancy, gpus, null);
    }

    /** Occupancy.findBlock with the job's rules and the policy's node order fixed. */
    private interface Placer {
        Placement place(Occupancy occupancy, int gpus, boolean[] allowedNodes);
    }

    private static List<RunningJob> onOneNode(int gpus, Occupancy occupancy, List<RunningJob> candidates, Placer placer) {
        int nodes = occupancy.cluster().nodes().size();
        List<RunningJob> best = null;
        double bestTop = Double.MAX_VALUE;
        int bestGpus = Integer.MAX_VALUE;
        for (int n = 0; n < nodes; n++) {
            if (occupancy.isDrained(n)) continue;
            boolean[] only = new boolean[nodes];
            only[n] = true;
            Occupancy trial = occupancy.copy();
            List<RunningJob> taken = new ArrayList<>();
            double top = 0;
            int freed = 0;
            for (RunningJob v : candidates) {
                if (placer.place(trial, gpus, only) != null || top > bestTop) break;
                if (!onlyOn(v, n)) continue;
                trial.release(v.placement());
                taken.add(v);
                top = Math.max(top, v.weight());
                freed += v.gpus();
            }
            boolean fits = !taken.isEmpty() && placer.place(trial, gpus, only) != null;
            if (fits && (top < bestTop || (top == bestTop && freed < bestGpus))) {
                best = taken;
                bestTop = top;
                bestGpus = freed;
            }
        }
        return best;
    }

    private static List<RunningJob> anywhere(int gpus, Occupancy occupancy, List<RunningJob> candidates, Placer placer) {
        Occupancy trial = occupancy.copy();
        List<RunningJob> taken = new ArrayList<>();
        for (RunningJob v : candidates) {
            trial.release(v.placement());
            taken.add(v);
            if (placer.place(trial, gpus, null) != null) return taken;
        }
        return null;
    }

    private static boolean onlyOn(RunningJob r, int node) {
        return r.placement().slices().stream().allMatch(s -> s.node() == node);
    }
}
