package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.Occupancy;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.actions.Ranking;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A wide budgeted job that still finds no whole nodes after preemption is kept out by work that
 * may not be preempted (inside its minimum runtime, unable to resume, or outranking it), scattered
 * over every node. Hold the nodes with the least of that work: nothing new starts there in this
 * decision, so they empty as that work ends, instead of refilling with more small jobs.
 */
final class NodeHolding {
    private NodeHolding() {
    }

    static void holdNodesFor(PendingJob j, Occupancy occupancy, VictimPool pool, List<RunningJob> running, Decision decision) {
        int nodes = occupancy.cluster().nodes().size();
        int[] stuck = new int[nodes];
        Set<String> movable = new HashSet<>();
        pool.cheapest(w -> !Ranking.outranks(w, j.weight())).forEach(r -> movable.add(r.id()));
        for (RunningJob r : running) {
            if (movable.contains(r.id()) || decision.preemptions().contains(r.id())) continue;
            for (Placement.Slice s : r.placement().slices()) stuck[s.node()] += s.count();
        }
        Integer[] order = new Integer[nodes];
        for (int n = 0; n < nodes; n++) order[n] = n;
        Arrays.sort(order, Comparator.comparingInt((Integer n) -> stuck[n]).thenComparingInt(n -> n));
        int left = j.gpus();
        for (int k = 0; k < nodes && left > 0; k++) {
            occupancy.drain(order[k]);
            left -= occupancy.cluster().nodes().get(order[k]).gpus();
        }
        decision.waiting(j.id(), "waiting for whole nodes: the emptiest ones are held for it, no new work starts there");
    }
}
