package dev.horizon.allocator.plan;

import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.PlacementRules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which nodes hold a job from one step of the grid, given the GPUs each node has free for the whole run: the grid's form
 * of the placement rules {@code Occupancy.findBlock} applies to GPU indices (models through the job's allowed nodes,
 * replica width, same node, one NVLink domain). Every grid planner places through it.
 */
public final class NodeChoice {
    private NodeChoice() {
    }

    /** {node, GPUs} slices for the job, or null when the free GPUs cannot hold it: on one GPU model unless it may mix them. */
    public static int[][] choose(PlanProblem p, PlanProblem.Job job, int[] free) {
        boolean[] allowed = new boolean[free.length];
        for (int n = 0; n < allowed.length; n++) allowed[n] = job.allows(n);
        return ModelGroups.place(p.nodeModels(), allowed, allowed.length, job.rules().mixModels(), ok -> choose(p, job, free, ok),
                NodeChoice::nodesOf);
    }

    /**
     * What {@link #choose} gives a job that goes on one node (no replica width, no wider than the largest node it accepts)
     * and is not held to one NVLink domain, from step s for d steps: its best-fit node (one node is one model), read from
     * the nodes' minima over the run without writing them out, and no further than the first node that fits exactly.
     */
    static int[][] onOneNode(PlanProblem.Job job, RangeMinima nodeMin, int s, int d) {
        int best = nodeMin.leastAtLeast(s, d, job.allowedNodes(), job.gpus());
        return best < 0 ? null : new int[][] {{best, job.gpus()}};
    }

    private static int[] nodesOf(int[][] slices) {
        int[] out = new int[slices.length];
        for (int i = 0; i < slices.length; i++) out[i] = slices[i][0];
        return out;
    }

    private static int[][] choose(PlanProblem p, PlanProblem.Job job, int[] free, boolean[] ok) {
        if (job.rules().topology() != PlacementRules.Topology.SAME_NVLINK_DOMAIN) return within(p, job, free, ok);
        // the fullest domain that can hold it, as BlockSearch packs
        Map<Integer, boolean[]> domains = new LinkedHashMap<>();
        Map<Integer, Integer> domainFree = new LinkedHashMap<>();
        for (int n = 0; n < ok.length; n++) {
            if (!ok[n]) continue;
            domains.computeIfAbsent(p.domainOf(n), d -> new boolean[ok.length])[n] = true;
            domainFree.merge(p.domainOf(n), Math.max(0, free[n]), Integer::sum);
        }
        List<Integer> order = new ArrayList<>(domains.keySet());
        order.removeIf(d -> domainFree.get(d) < job.gpus());
        order.sort(Comparator.comparingInt(domainFree::get));
        for (int d : order) {
            int[][] slices = within(p, job, free, domains.get(d));
            if (slices != null) return slices;
        }
        return null;
    }

    private static int[][] within(PlanProblem p, PlanProblem.Job job, int[] free, boolean[] ok) {
        int g = job.gpus();
        int best = bestFit(free, ok, g, null);
        if (best >= 0) return new int[][] {{best, g}};
        if (job.rules().topology() == PlacementRules.Topology.SAME_NODE) return null;
        if (job.rules().perReplica()) return byReplica(p, job.rules().gpusPerReplica(), g, free, ok);
        if (g <= p.largestNodeFor(job)) return null;
        return wholeNodesPlusRest(p.nodeSizes(), g, free, ok);
    }

    /** The allowed node with the fewest free GPUs that still has {@code g} (taken: GPUs already given on each), or -1. */
    private static int bestFit(int[] free, boolean[] ok, int g, int[] taken) {
        int best = -1, bestFree = Integer.MAX_VALUE;
        for (int n = 0; n < free.length; n++) {
            int f = free[n] - (taken == null ? 0 : taken[n]);
            if (ok[n] && f >= g && f < bestFree) {
                best = n;
                bestFree = f;
            }
        }
        return best;
    }

    /** A job without a replica width wider than a node: whole free nodes, in index order, plus a best-fit node for the rest. */
    private static int[][] wholeNodesPlusRest(int[] sizes, int g, int[] free, boolean[] ok) {
        List<int[]> chosen = new ArrayList<>();
        boolean[] rest = ok.clone();
        int left = g;
        for (int n = 0; n < sizes.length && left > 0; n++) {
            if (ok[n] && free[n] == sizes[n] && sizes[n] <= left) {
                chosen.add(new int[] {n, sizes[n]});
                rest[n] = false;
                left -= sizes[n];
            }
        }
        if (left > 0) {
            int n = bestFit(free, rest, left, null);
            if (n < 0) return null;
            chosen.add(new int[] {n, left});
        }
        return chosen.toArray(new int[0][]);
    }

    /** Whole replicas per node: whole free nodes first, then the rest on one node, else replica by replica (best fit). */
    private static int[][] byReplica(PlanProblem p, int perReplica, int g, int[] free, boolean[] ok) {
        if (g % perReplica != 0) return null;
        int[] sizes = p.nodeSizes();
        int[] taken = new int[sizes.length];
        int left = g;
        for (int n = 0; n < sizes.length && left > 0; n++) {
            int holds = sizes[n] / perReplica * perReplica;
            if (!ok[n] || free[n] != sizes[n] || holds == 0 || holds > left) continue;
            taken[n] = holds;
            left -= holds;
        }
        if (left > 0) {
            boolean[] unused = ok.clone();
            for (int n = 0; n < sizes.length; n++) if (taken[n] > 0) unused[n] = false;
            int n = bestFit(free, unused, left, null);
            if (n >= 0) {
                taken[n] = left;
                left = 0;
            }
        }
        for (; left > 0; left -= perReplica) {
            int n = bestFit(free, ok, perReplica, taken);
            if (n < 0) return null;
            taken[n] += perReplica;
        }
        List<int[]> chosen = new ArrayList<>();
        for (int n = 0; n < sizes.length; n++) if (taken[n] > 0) chosen.add(new int[] {n, taken[n]});
        return chosen.toArray(new int[0][]);
    }
}
