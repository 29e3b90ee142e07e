package dev.horizon.service.nodes;

import dev.horizon.api.Limits;
import java.util.ArrayList;
import java.util.List;

/** An admin's drain of a node, as {@code PUT /api/v1/nodes/{name}/drain} reads it: why, as Slurm's Reason= says it. */
public record DrainRequest(String reason) {
    public static final String EXAMPLE = "{\"reason\":\"replacing GPU 3's fan\"}";
    /** What drained_nodes.reason holds, with room to spare. */
    public static final int MAX_REASON = 1000;

    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (reason == null || reason.isBlank()) {
            problems.add("reason: required, why the node is drained (the node view shows it), for example " + EXAMPLE);
            return problems;
        }
        Limits.text("reason", reason, MAX_REASON, problems);
        return problems;
    }
}
