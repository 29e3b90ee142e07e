package dev.horizon.fractional.mig;

import dev.horizon.api.mig.MigGeometry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An administrator's MIG policy for one node pool: which GPU models may be partitioned, which profiles may be made,
 * whether layouts are fixed or follow demand, how long a GPU drains before it is re-partitioned, and how many GPUs
 * may be reconfiguring at once (a reconfiguring GPU serves nothing).
 */
public record MigPolicy(String nodePool, Set<String> partitionableModels, Set<String> allowedProfiles, Layout layout, Duration drainTime,
        int maxConcurrentReconfigurations) {

    public enum Layout {
        /** The layout is set by the administrator; the planner never changes it. */
        FIXED,
        /** The planner may re-partition idle GPUs to follow demand. */
        DYNAMIC
    }

    public MigPolicy {
        partitionableModels = Set.copyOf(partitionableModels);
        allowedProfiles = Set.copyOf(allowedProfiles);
        List<String> problems = new ArrayList<>();
        for (String model : partitionableModels) {
            if (!MigGeometry.supportsMig(model)) problems.add("model '" + model + "' cannot be partitioned (no MIG geometry)");
        }
        for (String profile : allowedProfiles) {
            boolean offered = partitionableModels.stream().filter(MigGeometry::supportsMig)
                    .anyMatch(m -> MigGeometry.of(m).profiles().stream().anyMatch(p -> p.name().equals(profile)));
            if (!offered) problems.add("profile '" + profile + "' is not offered by any partitionable model " + partitionableModels);
        }
        if (drainTime == null || drainTime.isNegative()) problems.add("drainTime must be zero or more");
        if (maxConcurrentReconfigurations < 1) problems.add("maxConcurrentReconfigurations must be at least 1 (got " + maxConcurrentReconfigurations + ")");
        if (!problems.isEmpty()) throw new IllegalArgumentException("MIG policy for pool '" + nodePool + "': " + String.join("; ", problems));
    }
}
