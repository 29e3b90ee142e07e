package dev.horizon.allocator.plan;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot path: takes jobs in value order and gives each the earliest start at which its whole
 * block fits, both in the cluster's protected capacity and on the nodes {@link NodeChoice} picks
 * (one node, or whole nodes for a job wider than a node, within its models, pods and topology) for
 * every step it runs. Every hard rule holds by construction: one job per GPU
 * per step, inherited work untouched, contiguous blocks, inference reservation kept.
 */
public final class HeuristicPlanner {

    public Plan plan(PlanProblem p) {
        int[] capacity = p.capacityCopy();
        int[][] nodeFree = p.nodeFreeCopy();
        // per node and job length, the sliding minimum of free GPUs; a node's entries go stale only
        // when a job is planned on it, so jobs of the same estimated length share the work
        int[][][] nodeMinCache = new int[nodeFree.length][p.horizonSteps() + 1][];
        Map<String, Integer> starts = new LinkedHashMap<>();
        Map<String, Integer> narrowed = new LinkedHashMap<>();
        double objective = 0;
        int maxCapacity = 0;
        for (int c : capacity) maxCapacity = Math.max(maxCapacity, c);
        for (PlanProblem.Job asked : p.jobs()) {
            PlanProblem.Job job = asked;
            Choice placement = asked.gpus() > maxCapacity ? null : earliest(p, capacity, nodeFree, nodeMinCache, asked);
            // an elastic job that would wait at full width starts now on the widest narrower width that fits
            List<Integer> widths = asked.widths();
            for (int i = 1; i < widths.size() && (placement == null || placement.start() > 0); i++) {
                int width = widths.get(i);
                PlanProblem.Job trial = asked.narrowed(width);
                Choice now = width > maxCapacity ? null : earliest(p, capacity, nodeFree, nodeMinCache, trial);
                if (now != null && now.start() == 0) {
                    job = trial;
                    placement = now;
                    narrowed.put(job.id(), width);
                }
            }
            if (placement == null) continue;
            int s = placement.start();
            int end = Math.min(p.horizonSteps(), s + job.durationSteps());
            for (int t = s; t < end; t++) capacity[t] -= job.gpus();
            for (int[] slice : placement.slices()) {
                for (int t = s; t < end; t++) nodeFree[slice[0]][t] -= slice[1];
                java.util.Arrays.fill(nodeMinCache[slice[0]], null);
            }
            starts.put(job.id(), s);
            objective += p.reward(job, s);
            maxCapacity = 0;
            for (int c : capacity) maxCapacity = Math.max(maxCapacity, c);
        }
        return new Plan(starts, objective, narrowed);
    }

    /** The earliest start of a job and the {node, GPUs} slices it takes from there. */
    record Choice(int start, int[][] slices) {
    }

    /** The earliest feasible start, or null when the job fits nowhere in the horizon. */
    static Choice earliest(PlanProblem p, int[] capacity, int[][] nodeFree, int[][][] nodeMinCache, PlanProblem.Job job) {
        int h = p.horizonSteps();
        int g = job.gpus();
        int d = Math.min(h, job.durationSteps());
        int[] capMin = slidingMin(capacity, d, h);
        int nodes = nodeFree.length;
        int[][] nodeMin = null;
        int[] free = new int[nodes];
        for (int s = 0; s < h; s++) {
            if (capMin[s] < g) continue;
            if (nodeMin == null) {
                nodeMin = new int[nodes][];
                for (int n = 0; n < nodes; n++) {
                    if (nodeMinCache[n][d] == null) nodeMinCache[n][d] = slidingMin(nodeFree[n], d, h);
                    nodeMin[n] = nodeMinCache[n][d];
                }
            }
            for (int n = 0; n < nodes; n++) free[n] = nodeMin[n][s];
            int[][] chosen = NodeChoice.choose(p, job, free);
            if (chosen != null) return new Choice(s, chosen);
        }
        return null;
    }

    /** out[s] = min of a[s .. min(h, s + len) - 1]. */
    static int[] slidingMin(int[] a, int len, int h) {
        int[] out = new int[h];
        int[] deque = new int[h];
        int head = 0, tail = 0;
        // walk backwards so each window [s, s+len) is clipped at the horizon's end
        for (int s = h - 1; s >= 0; s--) {
            while (tail > head && a[deque[tail - 1]] >= a[s]) tail--;
            deque[tail++] = s;
            while (deque[head] >= s + len) head++;
            out[s] = a[deque[head]];
        }
        return out;
    }
}
