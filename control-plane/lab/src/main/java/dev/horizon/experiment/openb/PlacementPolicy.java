package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import java.util.List;
import java.util.random.RandomGenerator;

/** Chooses a node and GPUs for one arriving task among the nodes where it fits, or null when it fits nowhere. */
public interface PlacementPolicy {
    TaskPlacement place(WorkloadTask pod, List<NodeRoom> nodes, RandomGenerator rng);
}
