package dev.horizon.allocator.plan;

import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Where a job's search for its earliest start may begin, within one plan. A plan only takes GPUs, never gives them back,
 * and a job that goes on one node fits at a step only if the capacity and one of its nodes hold its GPUs for its whole
 * run (at the first step its cautious run, no shorter for a longer job): so it cannot start before the earliest start
 * found for an earlier such job on the same nodes that asked no more GPUs for no longer (the steps before it were checked
 * and did not hold that smaller job then, and hold less now). In a plan of thousands of jobs of a few sizes on a full
 * cluster, most of the steps each job's search walked are skipped.
 */
final class StartFloors {
    private final int steps;
    private final int widest;
    /** Per set of allowed nodes: floor[g][d], the earliest start of a one-node job of g GPUs running d steps (steps: none). */
    private final Map<NodeSet, int[][]> floors = new HashMap<>();
    /** Each array of allowed nodes seen, as its set (null: every node): the jobs of one shape share one array. */
    private final Map<boolean[], NodeSet> sets = new IdentityHashMap<>();
    /** The largest node of each array of allowed nodes seen (null: every node): the jobs of one shape share one array. */
    private final Map<boolean[], Integer> largest = new IdentityHashMap<>();

    /** steps: the horizon; widest: the largest node's GPUs (no one-node job asks more). */
    StartFloors(int steps, int widest) {
        this.steps = steps;
        this.widest = widest;
    }

    /** The first step worth trying for a one-node job of g GPUs running d steps (1 <= d <= steps) on these nodes. */
    int from(boolean[] allowed, int g, int d) {
        int[][] f = floors.get(setOf(allowed));
        return f == null ? 0 : f[g][d];
    }

    /** Such a job's earliest start was found (steps: it fits nowhere): no job it needs no more than starts earlier. */
    void found(boolean[] allowed, int g, int d, int start) {
        int[][] f = floors.computeIfAbsent(setOf(allowed), k -> new int[widest + 1][steps + 1]);
        for (int wider = g; wider <= widest; wider++) {
            int[] row = f[wider];
            for (int longer = d; longer <= steps && row[longer] < start; longer++) row[longer] = start;
        }
    }

    /** The largest node the job accepts ({@link PlanProblem#largestNodeFor}), worked out once per array of allowed nodes. */
    int largestNode(PlanProblem p, PlanProblem.Job job) {
        return largest.computeIfAbsent(job.allowedNodes(), k -> p.largestNodeFor(job));
    }

    private NodeSet setOf(boolean[] allowed) {
        return sets.computeIfAbsent(allowed, NodeSet::new);
    }

    /**
     * A job's allowed nodes by content (null: every node); jobs of one model set each carry their own array. The hash is
     * worked out once per array: on a cluster of a thousand nodes hashing it at every lookup cost more than the lookup.
     */
    private record NodeSet(boolean[] allowed, int hash) {
        NodeSet(boolean[] allowed) {
            this(allowed, Arrays.hashCode(allowed));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof NodeSet other && hash == other.hash && Arrays.equals(allowed, other.allowed);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
