package dev.horizon.allocator.cpsat;

import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.plan.NodeChoice;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The grid being filled. A job fits at s when protected capacity covers it in every step it runs and the
 * nodes {@link NodeChoice} picks (the heuristic's placement rules) hold it for all those steps; a start now, for its
 * cautious run ({@link PlanProblem#stepsChecked}), as the heuristic asks. A job takes only its run.
 */
final class Grid {
    final PlanProblem p;
    final int h;
    final int[] nodeSizes;
    final int[] capacity;
    final int[][] nodeFree;

    Grid(PlanProblem p) {
        this.p = p;
        h = p.horizonSteps();
        nodeSizes = p.nodeSizes();
        capacity = p.capacityCopy();
        nodeFree = p.nodeFreeCopy();
    }

    /** Wider than every node it may use, so it spans several (never a same-node job). */
    boolean wide(PlanProblem.Job job) {
        return job.rules().topology() != PlacementRules.Topology.SAME_NODE && job.gpus() > p.largestNodeFor(job);
    }

    /**
     * Starts where capacity covers the job and its allowed nodes' free GPUs could, ignoring how they split: on one
     * node, or in total (a wide job; within one NVLink domain when it asks for one).
     */
    long[] feasibleStarts(PlanProblem.Job job) {
        int g = job.gpus();
        boolean oneDomain = job.rules().topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN;
        List<Long> out = new ArrayList<>();
        for (int s = 0; s < h; s++) {
            int end = checkedEnd(job, s);
            if (!capacityCovers(g, s, end)) continue;
            int most = 0;
            Map<Integer, Integer> total = new HashMap<>();
            for (int n = 0; n < nodeFree.length; n++) {
                if (!job.allows(n)) continue;
                int m = Math.max(0, windowMin(n, s, end));
                most = Math.max(most, m);
                total.merge(oneDomain ? p.domainOf(n) : 0, m, Integer::sum);
            }
            int bestTotal = total.values().stream().mapToInt(Integer::intValue).max().orElse(0);
            if (wide(job) ? bestTotal >= g : most >= g) out.add((long) s);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    int earliest(PlanProblem.Job job) {
        for (int s = 0; s < h; s++) if (slicesFor(job, s) != null) return s;
        return -1;
    }

    /** Whether the given slices hold the job at s: all its GPUs, distinct allowed nodes, free in every step, under its rules. */
    boolean fits(PlanProblem.Job job, int s, int[][] slices) {
        if (s < 0 || s >= h) return false;
        int end = checkedEnd(job, s);
        if (!capacityCovers(job.gpus(), s, end)) return false;
        int total = 0;
        boolean[] seen = new boolean[nodeFree.length];
        PlacementRules rules = job.rules();
        for (int[] slice : slices) {
            if (seen[slice[0]] || slice[1] <= 0 || windowMin(slice[0], s, end) < slice[1] || !job.allows(slice[0])) return false;
            if (rules.perReplica() && slice[1] % rules.gpusPerReplica() != 0) return false;
            if (rules.topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN && p.domainOf(slice[0]) != p.domainOf(slices[0][0])) return false;
            seen[slice[0]] = true;
            total += slice[1];
        }
        boolean oneNodeOk = rules.topology() != PlacementRules.Topology.SAME_NODE || slices.length == 1;
        return oneNodeOk && total == job.gpus();
    }

    void commit(PlanProblem.Job job, int s, int[][] slices) {
        int end = end(job, s);
        for (int t = s; t < end; t++) capacity[t] -= job.gpus();
        for (int[] slice : slices) {
            for (int t = s; t < end; t++) nodeFree[slice[0]][t] -= slice[1];
        }
    }

    /** Takes a committed job off the grid again. */
    void release(PlanProblem.Job job, int s, int[][] slices) {
        int end = end(job, s);
        for (int t = s; t < end; t++) capacity[t] += job.gpus();
        for (int[] slice : slices) {
            for (int t = s; t < end; t++) nodeFree[slice[0]][t] += slice[1];
        }
    }

    /** {node, GPUs} slices the heuristic would give the job at s ({@link NodeChoice}), or null when it does not fit there. */
    int[][] slicesFor(PlanProblem.Job job, int s) {
        if (s < 0 || s >= h) return null;
        return slicesOver(job, s, checkedEnd(job, s));
    }

    /** Whether some width of the job fits now for its estimated run alone, as {@code HeuristicPlanner} asks it. */
    boolean fitsNowForItsEstimate(PlanProblem.Job asked) {
        for (int width : asked.widths()) {
            PlanProblem.Job job = width == asked.gpus() ? asked : asked.narrowed(width);
            if (slicesOver(job, 0, end(job, 0)) != null) return true;
        }
        return false;
    }

    /** The first step after now from which the job's cautious run fits, as {@code HeuristicPlanner} finds it; -1: none. */
    int firstCautiousStart(PlanProblem.Job job) {
        int run = p.stepsChecked(job, 0);
        for (int s = 1; s < h; s++) if (slicesOver(job, s, Math.min(h, s + run)) != null) return s;
        return -1;
    }

    private int[][] slicesOver(PlanProblem.Job job, int s, int end) {
        if (!capacityCovers(job.gpus(), s, end)) return null;
        int[] min = new int[nodeFree.length];
        for (int n = 0; n < nodeFree.length; n++) min[n] = windowMin(n, s, end);
        return NodeChoice.choose(p, job, min);
    }

    private int end(PlanProblem.Job job, int s) {
        return Math.min(h, s + job.durationSteps());
    }

    /** The end of the steps a start at s must find free (see {@link PlanProblem#stepsChecked}). */
    private int checkedEnd(PlanProblem.Job job, int s) {
        return Math.min(h, s + p.stepsChecked(job, s));
    }

    private boolean capacityCovers(int g, int s, int end) {
        for (int t = s; t < end; t++) if (capacity[t] < g) return false;
        return true;
    }

    private int windowMin(int n, int s, int end) {
        int m = Integer.MAX_VALUE;
        for (int t = s; t < end; t++) m = Math.min(m, nodeFree[n][t]);
        return m;
    }
}
