package dev.horizon.api.integration;

import java.util.List;

/**
 * Where the plan put a job: the nodes its replicas may run on and, for a MIG job, the profile whose
 * resource ({@code nvidia.com/mig-<profile>}) each replica asks for on them.
 */
public record PlannedPlacement(List<String> nodes, String migProfile) {
    public PlannedPlacement {
        if (nodes == null || nodes.isEmpty()) throw new IllegalArgumentException("a placement names at least one node");
        nodes = List.copyOf(nodes);
    }
}
