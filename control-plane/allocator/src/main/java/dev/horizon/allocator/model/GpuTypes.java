package dev.horizon.allocator.model;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Checks a request's GPU types against the models a cluster has, so a typo fails at once rather than waiting forever. */
public final class GpuTypes {
    private GpuTypes() {
    }

    public static void requirePresent(List<String> requested, Set<String> clusterModels) {
        for (String t : requested) {
            if (!clusterModels.contains(t)) {
                throw new IllegalArgumentException("GPU type '" + t + "' is not in the cluster; it has " + new TreeSet<>(clusterModels));
            }
        }
    }
}
