package dev.horizon.allocator.eta;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.GpuState;
import dev.horizon.fractional.mig.MigPolicy;
import dev.horizon.fractional.mig.ReconfigurationPlanner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes of one sampled future as their MIG layouts change: the re-partitionings the policy asks for start as the
 * world starts them (what each GPU's MIG policy allows now, {@link ReconfigurationPlanner}: idle GPUs only, so many at
 * once) and the GPU takes its new layout after the policy's drain time. With the layouts of the moment kept for ever, a
 * job waiting for a re-partitioning never started in any future, and each such job's GPU was counted taken at every
 * decision of the plan (on the demo's day, debug sessions waiting for 1g.10gb instances held the first step's GPUs in
 * most futures, and the work behind them had no P90).
 */
final class FutureLayouts {
    private record Change(long readyAt, int node, int gpu, MigLayout to) {
    }

    private final List<NodeState> nodes;
    private final List<Change> changing = new ArrayList<>();

    FutureLayouts(List<NodeState> nodes) {
        this.nodes = new ArrayList<>(nodes);
    }

    /** The nodes as they stand now in this future. */
    List<NodeState> nodes() {
        return nodes;
    }

    /** When the next re-partitioning completes (Long.MAX_VALUE: none is under way). */
    long nextReady() {
        long next = Long.MAX_VALUE;
        for (Change c : changing) next = Math.min(next, c.readyAt());
        return next;
    }

    /**
     * Starts the re-partitionings the decision asks for that each GPU's MIG policy allows at now; occupancy: the cluster
     * as the decision left it (which GPUs still run work).
     */
    void start(Decision d, Occupancy occupancy, long now) {
        if (d.reconfigurations().isEmpty()) return;
        // one planner call per policy (a node pool, equal policies being one): how many GPUs may re-partition at once is
        // counted over the pool
        Map<MigPolicy, Map<String, MigLayout>> wanted = new HashMap<>();
        for (Decision.Reconfigure r : d.reconfigurations()) {
            MigPolicy policy = nodes.get(r.node()).migPolicy();
            if (policy != null) wanted.computeIfAbsent(policy, p -> new LinkedHashMap<>()).put(r.node() + "/" + r.gpu(), r.layout());
        }
        wanted.forEach((policy, layouts) -> {
            List<GpuState> gpus = new ArrayList<>();
            for (int n = 0; n < nodes.size(); n++) {
                if (!policy.equals(nodes.get(n).migPolicy())) continue;
                for (int g = 0; g < nodes.get(n).gpus().size(); g++) gpus.add(occupancy.migState(n, g, n + "/" + g));
            }
            for (ReconfigurationPlanner.Reconfiguration r : ReconfigurationPlanner.plan(policy, gpus, layouts, Instant.ofEpochSecond(now)).started()) {
                String[] at = r.gpuId().split("/");
                int node = Integer.parseInt(at[0]), gpu = Integer.parseInt(at[1]);
                set(node, gpu, new NodeState.Gpu(nodes.get(node).gpus().get(gpu).layout(), r.to(), false));
                changing.add(new Change(r.readyAt().getEpochSecond(), node, gpu, r.to()));
            }
        });
    }

    /**
     * The re-partitionings that have completed by t take their new layouts; returns each such GPU and when it was ready,
     * since work placed on it at the next decision starts from then, as on any GPU freed between decisions.
     */
    Map<GpuRef, Long> readyBy(long t) {
        if (changing.isEmpty()) return Map.of();
        Map<GpuRef, Long> ready = new HashMap<>();
        changing.removeIf(c -> {
            if (c.readyAt() > t) return false;
            set(c.node(), c.gpu(), new NodeState.Gpu(c.to().slots().isEmpty() ? null : c.to(), null, false));
            ready.put(new GpuRef(c.node(), c.gpu()), c.readyAt());
            return true;
        });
        return ready;
    }

    private void set(int node, int gpu, NodeState.Gpu state) {
        NodeState n = nodes.get(node);
        List<NodeState.Gpu> gpus = new ArrayList<>(n.gpus());
        gpus.set(gpu, state);
        nodes.set(node, new NodeState(n.node(), n.health(), n.migPolicy(), gpus, n.sharingPerNode()));
    }
}
