package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * A wide budgeted job that still finds no whole nodes after preemption is kept out by work that
 * may not be preempted (inside its minimum runtime, unable to resume, or outranking it), scattered
 * over every node. Hold the nodes with the least of that work: nothing new starts there in this
 * decision, so they empty as that work ends, instead of refilling with more small jobs. Only nodes of a model the job
 * accepts are held, and for a job that asks for one NVLink domain only nodes of the domain with the least such work.
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
        for (int n : toHold(occupancy, j, stuck)) occupancy.drain(n);
        decision.waiting(j.id(), "waiting for whole nodes: the emptiest ones are held for it, no new work starts there");
    }

    /** A node of a model the job accepts that is not drained already. */
    private static boolean mayHold(Occupancy occupancy, PendingJob j, int n) {
        return !occupancy.isDrained(n) && j.rules().accepts(occupancy.cluster().nodes().get(n).gpuModel());
    }

    /**
     * The nodes to hold for the job, given each node's stuck work: the least stuck nodes it accepts that together hold it,
     * within the one NVLink domain it asks for, or within one GPU model unless it may mix them, whichever has the least
     * stuck work (all of them where they fall short). Held across models, nodes that empty could never take the gang
     * together (wide-gangs seed 137: eight nodes of two models held for a 64-GPU job, which waited 16 hours).
     */
    static List<Integer> toHold(Occupancy occupancy, PendingJob j, int[] stuck) {
        List<Integer> order = new ArrayList<>();
        for (int n = 0; n < stuck.length; n++) if (mayHold(occupancy, j, n)) order.add(n);
        order.sort(Comparator.comparingInt((Integer n) -> stuck[n]).thenComparingInt(n -> n));
        if (j.rules().topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN) {
            order = emptiestGroup(occupancy, order, stuck, j.gpus(), occupancy.cluster()::domainOf, true, (a, b) -> 0);
        } else if (!j.rules().mixModels()) {
            order = emptiestGroup(occupancy, order, stuck, j.gpus(), n -> occupancy.cluster().nodes().get(n).gpuModel(), false,
                    ModelGroups.FASTEST_FIRST_ORDER);
        }
        List<Integer> held = new ArrayList<>();
        int left = j.gpus();
        for (int k = 0; k < order.size() && left > 0; k++) {
            held.add(order.get(k));
            left -= occupancy.cluster().nodes().get(order.get(k)).gpus();
        }
        return held;
    }

    /**
     * Of the groups the nodes fall in (groupOf: a node's domain or model), the one that can hold the job with the least
     * stuck work, its nodes in the order given. The stuck work counted is that of the whole group (wholeGroup: a domain,
     * which the job has to itself) or of its least stuck nodes that together hold the job (a model, which it shares);
     * onTie chooses between groups with as much.
     */
    private static List<Integer> emptiestGroup(Occupancy occupancy, List<Integer> order, int[] stuck, int gpus, IntFunction<String> groupOf,
                                               boolean wholeGroup, Comparator<String> onTie) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int n : order) groups.computeIfAbsent(groupOf.apply(n), g -> new ArrayList<>()).add(n);
        List<Integer> best = List.of();
        String bestGroup = null;
        int bestStuck = Integer.MAX_VALUE;
        for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
            int size = 0, held = 0;
            for (int n : g.getValue()) {
                if (!wholeGroup && size >= gpus) break;
                size += occupancy.cluster().nodes().get(n).gpus();
                held += stuck[n];
            }
            if (size >= gpus && (held < bestStuck || (held == bestStuck && onTie.compare(g.getKey(), bestGroup) < 0))) {
                best = g.getValue();
                bestGroup = g.getKey();
                bestStuck = held;
            }
        }
        return best;
    }
}
