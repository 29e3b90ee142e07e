package dev.horizon.fractional;

import java.util.List;

/** Builds a fresh policy for one run from the pod list (the target workload) and the cluster. */
@FunctionalInterface
public interface PolicyFactory {
    PlacementPolicy create(List<OpenbPod> pods, List<OpenbNode> nodes);
}
