package dev.horizon.service.agents;

import dev.horizon.agent.v1.ApplyMigLayout;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.Drain;
import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MemoryViolation;
import dev.horizon.agent.v1.MigSlot;
import dev.horizon.agent.v1.SetSharing;
import dev.horizon.service.nodes.CommandRequest;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.MemoryViolations;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeCommand;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.jobs.Placements;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Between the agent protocol's messages and the service's records. */
final class AgentMessages {
    private static final int MAX_NAME = 128;
    private static final int MAX_GPUS = 64;
    /** Xids after which NVIDIA's Xid catalogue says the GPU needs a reset: double-bit ECC, NVLink, fallen off the bus, uncontained ECC. */
    private static final Set<Integer> FATAL_XIDS = Set.of(48, 74, 79, 95);

    private AgentMessages() {
    }

    /** The node an inventory describes; a GPU that is not healthy drains it from the start. */
    static Node node(Inventory inv, long now) {
        List<String> problems = new ArrayList<>();
        String name = inv.getNodeName();
        if (name.isBlank() || name.length() > MAX_NAME) problems.add("node_name: 1 to " + MAX_NAME + " characters (got '" + name + "')");
        if (inv.getGpusCount() < 1 || inv.getGpusCount() > MAX_GPUS) {
            problems.add("gpus: a node has 1 to " + MAX_GPUS + " GPUs (got " + inv.getGpusCount() + ")");
        }
        List<Gpu> gpus = new ArrayList<>();
        Set<String> uuids = new HashSet<>();
        String unhealthy = null;
        for (int i = 0; i < inv.getGpusCount(); i++) {
            GpuInventory g = inv.getGpus(i);
            if (g.getUuid().isBlank() || !uuids.add(g.getUuid())) problems.add("gpus[" + i + "].uuid: required and unique (got '" + g.getUuid() + "')");
            if (g.getModel().isBlank()) problems.add("gpus[" + i + "].model: required, as jobs' gpuTypes name it (for example H100-80GB)");
            if (g.getMemoryMib() == 0) problems.add("gpus[" + i + "].memory_mib: required");
            String health = health(g.getHealth());
            if (unhealthy == null && !Node.HEALTHY.equals(health)) unhealthy = "GPU " + g.getUuid() + " registered as " + health;
            List<Gpu.MigDevice> mig = g.getMigDevicesList().stream().map(d -> new Gpu.MigDevice(d.getProfile(), d.getUuid(),
                    d.getPlacementStart(), d.getPlacementSize())).toList();
            gpus.add(new Gpu(g.getIndex(), g.getUuid(), g.getModel(), g.getMemoryMib(), migMode(g.getMigMode()), mig, health, null, null,
                    List.of(), null));
        }
        if (!problems.isEmpty()) throw invalid("invalid inventory: " + String.join("; ", problems));
        long memory = gpus.stream().mapToLong(Gpu::memoryMiB).min().orElseThrow();
        String domain = inv.getNvlinkDomain().isBlank() ? name : inv.getNvlinkDomain();
        return new Node(name, gpus.get(0).model(), memory, domain, Node.FROM_AGENT, unhealthy == null ? Node.HEALTHY : Node.UNHEALTHY, unhealthy,
                now, gpus);
    }

    /** An agent that does not say (HEALTH_UNSPECIFIED) has seen nothing wrong. */
    private static String health(dev.horizon.agent.v1.Health h) {
        return switch (h) {
            case LOST -> Node.LOST;
            case UNHEALTHY -> Node.UNHEALTHY;
            default -> Node.HEALTHY;
        };
    }

    /** ENABLED, DISABLED, PENDING or UNSUPPORTED; null when the agent did not say. */
    private static String migMode(dev.horizon.agent.v1.MigMode m) {
        return switch (m) {
            case MIG_MODE_UNSPECIFIED, UNRECOGNIZED -> null;
            default -> m.name().substring("MIG_".length());
        };
    }

    /** The GPU health a health event leaves behind: null when the GPU stays usable. */
    static String healthAfter(HealthEvent e) {
        return switch (e.getKind()) {
            case GPU_LOST -> Node.LOST;
            case ECC_UNCORRECTABLE -> Node.UNHEALTHY;
            case XID -> FATAL_XIDS.contains(e.getXid()) ? Node.UNHEALTHY : null;
            default -> null;
        };
    }

    static String describe(HealthEvent e) {
        String what = e.getKind() == HealthEvent.Kind.XID ? "Xid " + e.getXid() : e.getKind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return what + " on GPU " + e.getGpuUuid() + (e.getDetail().isBlank() ? "" : ": " + e.getDetail());
    }

    /** Utilization becomes a fraction, as the service reports utilization everywhere. */
    static List<NodeStore.Reading> readings(List<dev.horizon.agent.v1.GpuTelemetry> gpus) {
        return gpus.stream().map(g -> new NodeStore.Reading(g.getUuid(), g.hasUtilizationPercent() ? g.getUtilizationPercent() / 100 : null,
                g.getMemoryUsedMib(), g.getProcessesList().stream().map(p -> new Gpu.Process(p.getPid(), p.getUsedMemoryMib(), p.getName()))
                        .toList())).toList();
    }

    /**
     * A violation as the service records it, matched to the one running job whose placement holds the GPU: on a GPU that
     * several jobs share (fractional placements) the process cannot be told apart by its GPU alone, so none is named.
     */
    static MemoryViolations.Violation violation(Node node, MemoryViolation v, List<JobRow> running, long now) {
        Gpu gpu = node.gpus().stream().filter(g -> g.uuid().equals(v.getGpuUuid())).findFirst().orElseThrow(() -> invalid(
                "violations: gpu_uuid '" + v.getGpuUuid() + "' is not a GPU of node " + node.name() + "; register the node's inventory first"));
        if (v.getAction() == MemoryViolation.Action.ACTION_UNSPECIFIED || v.getAction() == MemoryViolation.Action.UNRECOGNIZED) {
            throw invalid("violations: action is required (REPORTED, KILLED or KILL_FAILED) for pid " + v.getPid());
        }
        List<String> holders = running.stream().filter(j -> j.placement() != null && Placements.holds(j.placement(), node.name(), gpu.index()))
                .map(JobRow::id).toList();
        return new MemoryViolations.Violation(node.name(), gpu.uuid(), v.getPid(), v.getProcessName().isBlank() ? null : v.getProcessName(),
                v.getUsedMib(), v.getAllowedMib(), v.getShare(), v.getAction().name(), v.getObservedAtMs() > 0 ? v.getObservedAtMs() : now,
                holders.size() == 1 ? holders.get(0) : null);
    }

    static Command command(NodeCommand c) {
        Command.Builder b = Command.newBuilder().setId(c.id()).setLeaderEpoch(c.leaderEpoch());
        CommandRequest a = c.action();
        if (a.applyMigLayout() != null) {
            ApplyMigLayout.Builder mig = ApplyMigLayout.newBuilder().setGpuUuid(a.applyMigLayout().gpuUuid());
            a.applyMigLayout().slots().forEach(s -> mig.addSlots(MigSlot.newBuilder().setProfile(s.profile()).setStart(s.start())));
            b.setApplyMigLayout(mig);
        } else if (a.setSharing() != null) {
            CommandRequest.SetSharing s = a.setSharing();
            SetSharing.Builder sharing = SetSharing.newBuilder().setGpuUuid(s.gpuUuid()).setMode(SetSharing.Mode.valueOf(s.mode()));
            if (s.replicas() != null) sharing.setReplicas(s.replicas());
            if (s.activeThreadPercentage() != null) sharing.setActiveThreadPercentage(s.activeThreadPercentage());
            if (s.memoryLimitMiB() != null) sharing.setMemoryLimitMib(s.memoryLimitMiB());
            b.setSetSharing(sharing);
        } else {
            b.setDrain(Drain.newBuilder().setReason(a.drain().reason() == null ? "" : a.drain().reason()));
        }
        return b.build();
    }

    static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
