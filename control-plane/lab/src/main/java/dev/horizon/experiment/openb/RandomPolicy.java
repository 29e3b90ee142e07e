package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import java.util.List;
import java.util.random.RandomGenerator;

/** The Random baseline: any node where the task fits, and for a share any GPU with room, drawn uniformly. */
final class RandomPolicy implements PlacementPolicy {
    @Override
    public TaskPlacement place(WorkloadTask pod, List<NodeRoom> nodes, RandomGenerator rng) {
        int chosen = -1;
        int seen = 0;
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).fits(pod) && rng.nextInt(++seen) == 0) chosen = i;
        }
        if (chosen < 0) return null;
        NodeRoom n = nodes.get(chosen);
        if (!pod.sharesGpu()) return new TaskPlacement(chosen, ScoredPolicy.wholeGpus(pod, n));
        int gpu = -1;
        int fitting = 0;
        for (int g = 0; g < n.gpuLeft.length; g++) {
            if (n.gpuLeft[g] >= pod.gpuMilli() && rng.nextInt(++fitting) == 0) gpu = g;
        }
        return new TaskPlacement(chosen, new int[] {gpu});
    }
}
