package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import java.util.List;

/** Builds a fresh policy for one run from the pod list (the target workload) and the cluster. */
@FunctionalInterface
public interface PolicyFactory {
    PlacementPolicy create(List<WorkloadTask> pods, List<OpenbNode> nodes);
}
