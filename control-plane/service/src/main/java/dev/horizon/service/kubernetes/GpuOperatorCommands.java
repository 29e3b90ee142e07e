package dev.horizon.service.kubernetes;

import dev.horizon.api.integration.GpuMode;
import dev.horizon.kubernetes.KubernetesRefusal;
import dev.horizon.kubernetes.operator.DevicePluginSharing;
import dev.horizon.kubernetes.operator.MigLayoutConfig;
import dev.horizon.kubernetes.operator.Progress;
import dev.horizon.service.leadership.WhileLeading;
import dev.horizon.service.nodes.CommandRequest;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeCommand;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlanRequests;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * Runs the MIG and sharing commands of nodes with a GPU mode on Kubernetes instead of their agents, which then never
 * touch MIG through NVML: a layout goes to the GPU Operator's MIG manager (both modes), sharing to the device plugin's named
 * configs ({@code device-plugin}) or nowhere ({@code dra}: the claim carries NVIDIA's sharing config, so the command
 * succeeds at once). A command is SENT once Horizon changed the node's labels and SUCCEEDED or FAILED (with the GPU
 * Operator's reason) when the node shows the outcome; the planner plans a GPU whose layout failed again, as after an
 * agent's failure. Each pass reads the state from the cluster, so a new leader picks up where the last one was.
 */
@ApplicationScoped
public class GpuOperatorCommands {
    private static final Logger LOG = Logger.getLogger(GpuOperatorCommands.class);
    private static final String MIG_ENABLED = "ENABLED";

    @Inject
    KubernetesCluster cluster;
    @Inject
    CommandStore commands;
    @Inject
    NodeStore nodes;
    @Inject
    PlanRequests planner;

    /** Whether the command is run here rather than streamed to the node's agent. */
    public boolean takesOver(NodeCommand c) {
        return (c.action().applyMigLayout() != null || c.action().setSharing() != null) && cluster.mode(c.node()).isPresent();
    }

    @Scheduled(every = "${horizon.kubernetes.gpu-operator.poll:2s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = WhileLeading.class)
    void poll() {
        if (cluster.enabled()) pass(System.currentTimeMillis());
    }

    /** One pass over every unanswered command this runs, oldest first: start the queued, check the sent. */
    public void pass(long now) {
        Map<String, List<NodeCommand>> byNode = new LinkedHashMap<>();
        List<NodeCommand> unanswered = new ArrayList<>(commands.recentOrUnanswered(Long.MAX_VALUE));
        java.util.Collections.reverse(unanswered); // the store answers newest first
        for (NodeCommand c : unanswered) {
            if (takesOver(c)) byNode.computeIfAbsent(c.node(), k -> new ArrayList<>()).add(c);
        }
        byNode.forEach((node, list) -> {
            try {
                run(node, list, now);
            } catch (RuntimeException e) {
                LOG.warnf("node %s: Kubernetes commands wait for the next pass: %s", node, e.getMessage());
            }
        });
    }

    private void run(String nodeName, List<NodeCommand> list, long now) {
        Optional<Node> node = nodes.find(nodeName);
        if (node.isEmpty()) {
            list.forEach(c -> fail(c, "node " + nodeName + " is gone from the control plane", now));
            return;
        }
        GpuMode mode = cluster.mode(nodeName).orElseThrow();
        List<NodeCommand> queuedLayouts = new ArrayList<>();
        for (NodeCommand c : list) {
            if (c.action().applyMigLayout() != null) {
                if (NodeCommand.QUEUED.equals(c.state())) queuedLayouts.add(c);
                else check(c, node.get(), now);
            } else if (mode == GpuMode.DRA) {
                commands.finish(c.id(), true, null, now); // the claim's GpuConfig shares the GPU when its pods start
            } else {
                runSharing(c, node.get(), now);
            }
        }
        if (!queuedLayouts.isEmpty()) startLayouts(node.get(), queuedLayouts, now);
    }

    /** Every queued layout of the node in one change of its mig-parted config, on top of the one its label names. */
    private void startLayouts(Node node, List<NodeCommand> queued, long now) {
        MigLayoutConfig layout = cluster.mig().current(node.name()).filter(l -> l.gpuCount() == node.gpus().size()).orElseGet(() -> reported(node));
        for (NodeCommand c : queued) {
            Optional<Integer> gpu = index(node, c.action().applyMigLayout().gpuUuid());
            if (gpu.isEmpty()) {
                fail(c, "node " + node.name() + " has no GPU " + c.action().applyMigLayout().gpuUuid(), now);
                continue;
            }
            layout = layout.with(gpu.get(), counts(c.action().applyMigLayout().slots()));
        }
        try {
            String name = cluster.mig().apply(node.name(), layout);
            cluster.forgetLabels();
            for (NodeCommand c : queued) {
                if (index(node, c.action().applyMigLayout().gpuUuid()).isPresent()) commands.markSent(c.id(), now);
            }
            LOG.infof("node %s: MIG layout %s handed to the GPU Operator's MIG manager", node.name(), name);
        } catch (KubernetesRefusal | IllegalArgumentException e) {
            queued.forEach(c -> fail(c, e.getMessage(), now));
        }
    }

    private void check(NodeCommand c, Node node, long now) {
        CommandRequest.ApplyMigLayout layout = c.action().applyMigLayout();
        Optional<Integer> gpu = index(node, layout.gpuUuid());
        if (gpu.isEmpty()) {
            fail(c, "node " + node.name() + " has no GPU " + layout.gpuUuid() + " any more", now);
            return;
        }
        settle(c, cluster.mig().progress(node.name(), gpu.get(), counts(layout.slots()), waited(c, now)), now);
    }

    private void runSharing(NodeCommand c, Node node, long now) {
        CommandRequest.SetSharing s = c.action().setSharing();
        DevicePluginSharing.NodeSharing sharing = "EXCLUSIVE".equals(s.mode()) ? new DevicePluginSharing.NodeSharing("TIME_SLICING", 1)
                : new DevicePluginSharing.NodeSharing(s.mode(), s.replicas() == null ? 2 : s.replicas());
        try {
            if (NodeCommand.QUEUED.equals(c.state())) {
                cluster.sharing().apply(node.name(), sharing);
                cluster.forgetLabels();
                commands.markSent(c.id(), now);
                return;
            }
            int whole = (int) node.gpus().stream().filter(g -> g.migDevices() == null || g.migDevices().isEmpty()).count();
            settle(c, cluster.sharing().progress(node.name(), sharing, whole, waited(c, now)), now);
        } catch (KubernetesRefusal | IllegalArgumentException e) {
            fail(c, e.getMessage(), now);
        }
    }

    private void settle(NodeCommand c, Progress progress, long now) {
        if (progress instanceof Progress.Applied) {
            commands.finish(c.id(), true, null, now);
            LOG.infof("node %s: command %s applied by the GPU Operator", c.node(), c.id());
            planner.requestPlan();
        } else if (progress instanceof Progress.Failed f) {
            fail(c, f.reason(), now);
        }
    }

    /** A failed command leaves its GPU as it was: the next plan, asked for now, plans that GPU again. */
    private void fail(NodeCommand c, String reason, long now) {
        commands.finish(c.id(), false, reason, now);
        LOG.warnf("node %s: command %s failed: %s", c.node(), c.id(), reason);
        planner.requestPlan();
    }

    private static Duration waited(NodeCommand c, long now) {
        return Duration.ofMillis(now - (c.sentAt() == null ? c.createdAt() : c.sentAt()));
    }

    /** The node's MIG instances as its agent reports them, as counts per GPU: the base of a first layout change. */
    private static MigLayoutConfig reported(Node node) {
        MigLayoutConfig layout = MigLayoutConfig.off(node.gpus().size());
        for (Gpu g : node.gpus()) {
            boolean on = MIG_ENABLED.equals(g.migMode()) || g.migDevices() != null && !g.migDevices().isEmpty();
            if (!on) continue;
            Map<String, Integer> counts = new TreeMap<>();
            if (g.migDevices() != null) g.migDevices().forEach(d -> counts.merge(d.profile(), 1, Integer::sum));
            layout = layout.with(g.index(), counts);
        }
        return layout;
    }

    /** Instances per profile; an empty layout switches MIG off (null). */
    private static Map<String, Integer> counts(List<CommandRequest.Slot> slots) {
        if (slots == null || slots.isEmpty()) return null;
        Map<String, Integer> counts = new TreeMap<>();
        slots.forEach(s -> counts.merge(s.profile(), 1, Integer::sum));
        return counts;
    }

    private static Optional<Integer> index(Node node, String uuid) {
        return node.gpus().stream().filter(g -> g.uuid().equals(uuid)).map(Gpu::index).findFirst();
    }
}
