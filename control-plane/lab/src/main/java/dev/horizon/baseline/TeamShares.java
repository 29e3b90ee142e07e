package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.RunningJob;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Each team's share of the cluster, as a queue's quota and weight: its budget's fraction of the cluster where the
 * scenario has budgets; otherwise an equal share for every team seen so far (an administrator with no budgets to go
 * by gives every team the same quota).
 */
final class TeamShares {
    private final TreeSet<String> seen = new TreeSet<>();

    Map<String, Double> of(PlanningContext ctx) {
        for (RunningJob r : ctx.running()) seen.add(r.team());
        for (PendingJob j : ctx.pending()) seen.add(j.team());
        Map<String, Double> out = new LinkedHashMap<>();
        if (ctx.fairShare() != null) {
            for (String team : ctx.fairShare().tree().teams()) out.put(team, ctx.fairShare().tree().clusterFraction(team));
            for (String team : seen) out.putIfAbsent(team, 0.0);
            return out;
        }
        for (String team : seen) out.put(team, 1.0 / seen.size());
        return out;
    }

    /**
     * Water-filling, as KAI-Scheduler and Kueue's fair sharing divide a cluster: each team first gets up to its quota
     * (share x GPUs) of what it asks for, then what is left goes to the teams still asking, in proportion to their
     * shares, until nothing is left or nobody asks for more.
     */
    static Map<String, Double> fairShares(double gpus, Map<String, Double> shares, Map<String, Double> demand) {
        Map<String, Double> fair = new LinkedHashMap<>();
        double left = gpus;
        for (Map.Entry<String, Double> e : shares.entrySet()) {
            double got = Math.min(e.getValue() * gpus, demand.getOrDefault(e.getKey(), 0.0));
            fair.put(e.getKey(), got);
            left -= got;
        }
        while (left > 1e-9) {
            double weights = 0;
            for (Map.Entry<String, Double> e : shares.entrySet()) {
                if (demand.getOrDefault(e.getKey(), 0.0) - fair.get(e.getKey()) > 1e-9) weights += e.getValue();
            }
            if (weights <= 0) break;
            double given = 0;
            for (Map.Entry<String, Double> e : shares.entrySet()) {
                double want = demand.getOrDefault(e.getKey(), 0.0) - fair.get(e.getKey());
                if (want <= 1e-9) continue;
                double add = Math.min(want, left * e.getValue() / weights);
                fair.merge(e.getKey(), add, Double::sum);
                given += add;
            }
            left -= given;
            if (given <= 1e-9) break;
        }
        return fair;
    }
}
