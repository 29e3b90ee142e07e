package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobJson;
import dev.horizon.simulation.SimResult;
import java.util.List;
import java.util.Map;

/**
 * Horizon's output against what a user would install instead (the best of kai, kueue and slurm by priority-weighted
 * output) and against the fluid upper bound; and the bound over that peer, the most any policy could reach against it on
 * this window (where the best peer is already near the bound, no margin target above it can be met by any schedule).
 */
record PeerRatios(String bestPeer, double horizonOverBestPeer, double horizonOverBound, double boundOverBestPeer) {
    static final List<String> PEERS = List.of("kai", "kueue", "slurm");

    /** The ratios of these runs, or null when Horizon or every peer is missing. */
    static PeerRatios of(Map<String, SimResult> results, double boundOutput) {
        SimResult horizon = results.get("horizon");
        String best = null;
        for (String p : PEERS) {
            SimResult r = results.get(p);
            if (r != null && (best == null || r.metrics().priorityWeightedOutput() > results.get(best).metrics().priorityWeightedOutput())) best = p;
        }
        if (horizon == null || best == null) return null;
        double h = horizon.metrics().priorityWeightedOutput(), peer = results.get(best).metrics().priorityWeightedOutput();
        return new PeerRatios(best, h / peer, h / boundOutput, boundOutput / peer);
    }

    ObjectNode json() {
        return JobJson.mapper().createObjectNode().put("bestPeer", bestPeer).put("horizonOverBestPeer", horizonOverBestPeer)
                .put("horizonOverBound", horizonOverBound)
                .put("boundOverBestPeer", boundOverBestPeer);
    }
}
