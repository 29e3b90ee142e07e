package dev.horizon.service.kubernetes;

import dev.horizon.api.integration.GpuMode;
import dev.horizon.kubernetes.dra.DraDevice;
import dev.horizon.kubernetes.dra.InventoryCheck;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodePlatform.ResourceSliceCheck;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlanRequests;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The second inventory source: the devices NVIDIA's DRA driver publishes in ResourceSlices, read every
 * {@code horizon.kubernetes.inventory-check} and held against each agent's report. A {@code dra} node where they disagree
 * is drained (its reason names the first difference): its claims select the agent's UUIDs, so a GPU the driver does not
 * publish is one no pod could get. It is undrained once they agree again. The node view shows the latest check.
 */
@ApplicationScoped
public class ResourceSliceInventory {
    static final String DRAIN_PREFIX = "ResourceSlices disagree with the agent: ";
    private static final Logger LOG = Logger.getLogger(ResourceSliceInventory.class);

    @Inject
    KubernetesCluster cluster;
    @Inject
    NodeStore nodes;
    @Inject
    Leadership leadership;
    @Inject
    PlanRequests planner;

    private volatile Map<String, ResourceSliceCheck> latest = Map.of();

    @Scheduled(every = "${horizon.kubernetes.inventory-check:30s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void poll() {
        if (!cluster.enabled()) return;
        try {
            check(System.currentTimeMillis());
        } catch (RuntimeException e) {
            LOG.warnf("reading ResourceSlices failed, the next check tries again: %s", e.getMessage());
        }
    }

    /** The last check of a dra node, if any. */
    public Optional<ResourceSliceCheck> of(String node) {
        return Optional.ofNullable(latest.get(node));
    }

    /** Reads the ResourceSlices once and checks every agent node in dra mode; the leader drains or undrains on the outcome. */
    public void check(long now) {
        Map<String, List<DraDevice>> published = cluster.slices().byNode();
        Map<String, ResourceSliceCheck> checks = new HashMap<>();
        boolean changed = false;
        for (Node node : nodes.all()) {
            if (!Node.FROM_AGENT.equals(node.source()) || cluster.mode(node.name()).orElse(null) != GpuMode.DRA) continue;
            List<DraDevice> devices = published.getOrDefault(node.name(), List.of());
            List<String> differences = InventoryCheck.differences(agentGpus(node), devices);
            checks.put(node.name(), new ResourceSliceCheck(devices.size(), differences, now));
            if (leadership.leading()) changed |= enforce(node, differences);
        }
        latest = Map.copyOf(checks);
        if (changed) planner.requestPlan();
    }

    private boolean enforce(Node node, List<String> differences) {
        if (!differences.isEmpty()) {
            String reason = DRAIN_PREFIX + differences.get(0) + (differences.size() > 1 ? " (and " + (differences.size() - 1) + " more)" : "");
            boolean drained = nodes.drain(node.name(), reason);
            if (drained) LOG.warnf("node %s drained: %s", node.name(), reason);
            return drained;
        }
        boolean back = nodes.undrain(node.name(), DRAIN_PREFIX);
        if (back) LOG.infof("node %s: ResourceSlices agree with the agent again; undrained", node.name());
        return back;
    }

    private static List<InventoryCheck.AgentGpu> agentGpus(Node node) {
        return node.gpus().stream().map(g -> new InventoryCheck.AgentGpu(g.uuid(), g.migDevices() == null ? List.of()
                : g.migDevices().stream().map(d -> new InventoryCheck.AgentMig(d.profile(), d.uuid())).toList())).toList();
    }
}
