package dev.horizon.api.integration;

import java.util.List;

/**
 * Where the plan put a job: the nodes its replicas may run on; for a MIG job, the profile whose resource
 * ({@code nvidia.com/mig-<profile>}) each replica asks for on them; and the planned devices in placement order (empty when
 * the control plane did not say, for nodes it knows only from its configuration).
 */
public record PlannedPlacement(List<String> nodes, String migProfile, List<PlannedDevice> devices) {
    public PlannedPlacement {
        if (nodes == null || nodes.isEmpty()) throw new IllegalArgumentException("a placement names at least one node");
        nodes = List.copyOf(nodes);
        devices = devices == null ? List.of() : List.copyOf(devices);
    }

    public PlannedPlacement(List<String> nodes, String migProfile) {
        this(nodes, migProfile, List.of());
    }
}
