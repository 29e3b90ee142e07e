package dev.horizon.allocator.plan;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hot path: takes jobs in value order and gives each the earliest start at which its whole
 * block fits, both in the cluster's protected capacity and on one node (or whole nodes for a job
 * wider than a node) for every step it runs. Every hard rule holds by construction: one job per GPU
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
            int[] placement = asked.gpus() > maxCapacity ? null : earliest(p, capacity, nodeFree, nodeMinCache, asked);
            // an elastic job that would wait at full width starts now on the widest power of two that fits
            for (int width = narrower(asked.gpus()); (placement == null || placement[0] > 0) && width >= asked.minGpus(); width /= 2) {
                PlanProblem.Job trial = asked.narrowed(width);
                int[] now = width > maxCapacity ? null : earliest(p, capacity, nodeFree, nodeMinCache, trial);
                if (now != null && now[0] == 0) {
                    job = trial;
                    placement = now;
                    narrowed.put(job.id(), width);
                }
            }
            if (placement == null) continue;
            int s = placement[0];
            int end = Math.min(p.horizonSteps(), s + job.durationSteps());
            for (int t = s; t < end; t++) capacity[t] -= job.gpus();
            int left = job.gpus();
            for (int i = 1; i < placement.length; i++) {
                int n = placement[i];
                int take = Math.min(left, p.nodeSizes()[n]);
                for (int t = s; t < end; t++) nodeFree[n][t] -= take;
                java.util.Arrays.fill(nodeMinCache[n], null);
                left -= take;
            }
            starts.put(job.id(), s);
            objective += p.reward(job, s);
            maxCapacity = 0;
            for (int c : capacity) maxCapacity = Math.max(maxCapacity, c);
        }
        return new Plan(starts, objective, narrowed);
    }

    /** The largest power of two below {@code gpus}. */
    private static int narrower(int gpus) {
        return Integer.bitCount(gpus) == 1 ? gpus / 2 : Integer.highestOneBit(gpus);
    }

    /** {start, node...} for the earliest feasible start, or null when the job fits nowhere in the horizon. */
    static int[] earliest(PlanProblem p, int[] capacity, int[][] nodeFree, int[][][] nodeMinCache, PlanProblem.Job job) {
        int h = p.horizonSteps();
        int g = job.gpus();
        int d = Math.min(h, job.durationSteps());
        int[] capMin = slidingMin(capacity, d, h);
        int nodes = nodeFree.length;
        int[][] nodeMin = null;
        for (int s = 0; s < h; s++) {
            if (capMin[s] < g) continue;
            if (nodeMin == null) {
                nodeMin = new int[nodes][];
                for (int n = 0; n < nodes; n++) {
                    if (nodeMinCache[n][d] == null) nodeMinCache[n][d] = slidingMin(nodeFree[n], d, h);
                    nodeMin[n] = nodeMinCache[n][d];
                }
            }
            int[] chosen = chooseNodes(p.nodeSizes(), nodeMin, s, g);
            if (chosen != null) {
                int[] out = new int[chosen.length + 1];
                out[0] = s;
                System.arraycopy(chosen, 0, out, 1, chosen.length);
                return out;
            }
        }
        return null;
    }

    /** Best-fit node for a job within a node; else whole free nodes plus a best-fit node for the rest. */
    private static int[] chooseNodes(int[] nodeSizes, int[][] nodeMin, int s, int g) {
        int best = -1;
        for (int n = 0; n < nodeSizes.length; n++) {
            int free = nodeMin[n][s];
            if (free >= g && (best < 0 || free < nodeMin[best][s])) best = n;
        }
        if (best >= 0) return new int[] {best};
        int largest = 0;
        for (int size : nodeSizes) largest = Math.max(largest, size);
        if (g <= largest) return null;
        int[] chosen = new int[nodeSizes.length];
        int k = 0, left = g;
        boolean[] used = new boolean[nodeSizes.length];
        for (int n = 0; n < nodeSizes.length && left > 0; n++) {
            if (nodeMin[n][s] == nodeSizes[n] && nodeSizes[n] <= left) {
                chosen[k++] = n;
                used[n] = true;
                left -= nodeSizes[n];
            }
        }
        if (left > 0) {
            int rest = -1;
            for (int n = 0; n < nodeSizes.length; n++) {
                if (!used[n] && nodeMin[n][s] >= left && (rest < 0 || nodeMin[n][s] < nodeMin[rest][s])) rest = n;
            }
            if (rest < 0) return null;
            chosen[k++] = rest;
        }
        return java.util.Arrays.copyOf(chosen, k);
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
