package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * A policy that scores every node where the task fits and takes the highest score; an exact tie goes to the higher
 * tie-break, and a tie on both to the node of lowest rank (FGD's simulator breaks ties by node name, and names carry a
 * seeded random prefix). Scores are cached per node and task shape until the node changes, because consecutive tasks
 * mostly repeat a few shapes.
 */
abstract class ScoredPolicy implements PlacementPolicy {
    /** A node's score for a task, and the GPUs the task would take there. */
    record Choice(double score, double tieBreak, int[] gpus) {
    }

    private final List<Map<Long, Choice>> cache = new ArrayList<>();
    private final List<Integer> cachedVersion = new ArrayList<>();

    abstract Choice score(WorkloadTask pod, NodeRoom node);

    @Override
    public TaskPlacement place(WorkloadTask pod, List<NodeRoom> nodes, RandomGenerator rng) {
        while (cache.size() < nodes.size()) {
            cache.add(new HashMap<>());
            cachedVersion.add(-1);
        }
        long key = (((long) pod.cpuMilli() << 24) | ((long) pod.gpuMilli() << 8) | pod.numGpu()) * 31 + pod.memoryMiB();
        Choice best = null;
        int bestNode = -1;
        for (int i = 0; i < nodes.size(); i++) {
            NodeRoom n = nodes.get(i);
            if (!n.fits(pod)) continue;
            if (cachedVersion.get(i) != n.version) {
                cache.get(i).clear();
                cachedVersion.set(i, n.version);
            }
            Choice c = cache.get(i).computeIfAbsent(key, k -> score(pod, n));
            int cmp = best == null ? 1 : compare(c, best);
            if (cmp > 0 || (cmp == 0 && n.rank < nodes.get(bestNode).rank)) {
                best = c;
                bestNode = i;
            }
        }
        return best == null ? null : new TaskPlacement(bestNode, best.gpus());
    }

    private static int compare(Choice a, Choice b) {
        int c = Double.compare(a.score, b.score);
        return c != 0 ? c : Double.compare(a.tieBreak, b.tieBreak);
    }

    /** The GPU a share takes: the one with the highest per-GPU score, the first such on a tie. */
    interface GpuScore {
        double of(int gpu);
    }

    static Choice bestShareGpu(WorkloadTask pod, NodeRoom n, GpuScore score, double tieBreak) {
        int gpu = -1;
        double best = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n.gpuLeft.length; i++) {
            if (n.gpuLeft[i] < pod.gpuMilli()) continue;
            double s = score.of(i);
            if (s > best) {
                best = s;
                gpu = i;
            }
        }
        return new Choice(best, tieBreak, new int[] {gpu});
    }

    static int[] wholeGpus(WorkloadTask pod, NodeRoom n) {
        return pod.numGpu() == 0 ? new int[0] : n.lowestFreeGpus(pod.numGpu());
    }
}
