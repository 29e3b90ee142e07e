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
import dev.horizon.agent.v1.TelemetryReport;
import dev.horizon.api.Limits;
import dev.horizon.api.NodeNames;
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
import java.util.Map;
import java.util.Set;

/** Between the agent protocol's messages and the service's records. */
final class AgentMessages {
    private static final int MAX_GPUS = Limits.GPUS_PER_REPLICA;
    /** A GPU or MIG device UUID ("GPU-" and 36 hex digits and dashes), and a model name, with room to spare. */
    private static final int MAX_ID = 64;
    private static final int MAX_MIG_DEVICES = 7;
    /** Processes kept per GPU (those holding the most memory): an MPS GPU may have 48 clients; the store keeps a list in 8000 characters. */
    private static final int MAX_PROCESSES = 32;
    private static final int MAX_PROCESS_NAME = 128;
    private static final int MAX_DETAIL = 200;
    /** Problems one refusal lists; a gRPC status description must stay small. */
    private static final int MAX_PROBLEMS = 10;
    private static final int MAX_ENTRIES_PER_REPORT = 256;
    /** Xids after which NVIDIA's Xid catalogue says the GPU needs a reset: double-bit ECC, NVLink, fallen off the bus, uncontained ECC. */
    private static final Set<Integer> FATAL_XIDS = Set.of(48, 74, 79, 95);
    /** 22 base64 characters hold 128 bits. */
    private static final int MIN_NONCE = 22;
    private static final int MAX_NONCE = 128;

    private AgentMessages() {
    }

    /** The node an inventory describes; a GPU that is not healthy drains it from the start. */
    static Node node(Inventory inv, long now) {
        List<String> problems = new ArrayList<>();
        String name = inv.getNodeName();
        if (name.isBlank()) problems.add("node_name: required, the host's name in the cluster");
        else NodeNames.check("node_name", name, problems);
        Limits.text("nvlink_domain", inv.getNvlinkDomain(), Limits.NAME, problems);
        if (inv.getGpusCount() < 1 || inv.getGpusCount() > MAX_GPUS) {
            problems.add("gpus: a node has 1 to " + MAX_GPUS + " GPUs (got " + inv.getGpusCount() + ")");
        }
        List<Gpu> gpus = new ArrayList<>();
        Set<String> uuids = new HashSet<>();
        Set<Integer> indices = new HashSet<>();
        String unhealthy = null;
        for (int i = 0; i < Math.min(inv.getGpusCount(), MAX_GPUS); i++) {
            GpuInventory g = inv.getGpus(i);
            gpuProblems(g, "gpus[" + i + "]", uuids, indices, problems);
            String health = health(g.getHealth());
            if (unhealthy == null && !Node.HEALTHY.equals(health)) {
                unhealthy = "GPU " + g.getUuid() + " registered as " + health + (g.getHealthReason().isBlank() ? "" : ": " + g.getHealthReason());
            }
            List<Gpu.MigDevice> mig = g.getMigDevicesList().stream().map(d -> new Gpu.MigDevice(d.getProfile(), d.getUuid(),
                    d.getPlacementStart(), d.getPlacementSize())).toList();
            gpus.add(new Gpu(g.getIndex(), g.getUuid(), g.getModel(), g.getMemoryMib(), migMode(g.getMigMode()), mig, health, null, null,
                    List.of(), null));
        }
        if (!problems.isEmpty()) {
            throw invalid("invalid inventory: " + String.join("; ", problems.subList(0, Math.min(problems.size(), MAX_PROBLEMS)))
                    + (problems.size() > MAX_PROBLEMS ? "; and " + (problems.size() - MAX_PROBLEMS) + " more" : ""));
        }
        long memory = gpus.stream().mapToLong(Gpu::memoryMiB).min().orElseThrow();
        String domain = inv.getNvlinkDomain().isBlank() ? name : inv.getNvlinkDomain();
        return new Node(name, gpus.get(0).model(), memory, domain, Node.FROM_AGENT, unhealthy == null ? Node.HEALTHY : Node.UNHEALTHY, unhealthy,
                now, gpus, false);
    }

    private static void gpuProblems(GpuInventory g, String field, Set<String> uuids, Set<Integer> indices, List<String> problems) {
        if (g.getUuid().isBlank() || !uuids.add(g.getUuid())) problems.add(field + ".uuid: required and unique (got " + Limits.quote(g.getUuid()) + ")");
        Limits.text(field + ".uuid", g.getUuid(), MAX_ID, problems);
        if (g.getModel().isBlank()) problems.add(field + ".model: required, as jobs' gpuTypes name it (for example H100-80GB)");
        Limits.text(field + ".model", g.getModel(), MAX_ID, problems);
        if (g.getMemoryMib() < 1 || g.getMemoryMib() > Limits.SHARE_MEMORY_MIB) {
            problems.add(field + ".memory_mib: required, 1 to " + Limits.SHARE_MEMORY_MIB + " (got " + Long.toUnsignedString(g.getMemoryMib()) + ")");
        }
        if (g.getIndex() < 0 || g.getIndex() >= MAX_GPUS || !indices.add(g.getIndex())) {
            problems.add(field + ".index: NVML's device index, unique, 0 to " + (MAX_GPUS - 1) + " (got " + Integer.toUnsignedString(g.getIndex()) + ")");
        }
        migProblems(g, field, problems);
    }

    private static void migProblems(GpuInventory g, String field, List<String> problems) {
        if (g.getMigDevicesCount() > MAX_MIG_DEVICES) {
            problems.add(field + ".mig_devices: " + g.getMigDevicesCount() + " devices; a GPU has at most " + MAX_MIG_DEVICES);
            return;
        }
        for (int k = 0; k < g.getMigDevicesCount(); k++) {
            Limits.text(field + ".mig_devices[" + k + "].uuid", g.getMigDevices(k).getUuid(), MAX_ID, problems);
            Limits.text(field + ".mig_devices[" + k + "].profile", g.getMigDevices(k).getProfile(), MAX_ID, problems);
        }
    }

    /**
     * The agent's enrollment nonce: "" when it sent none, else 22 to 128 characters of base64 or hex, random enough that
     * nobody else holding the enrollment token can guess it (it keys the credential a retry gets back).
     */
    static String nonce(Inventory inv) {
        String nonce = inv.getEnrollmentNonce();
        if (nonce.isEmpty() || nonce.matches("[A-Za-z0-9_\\-+/=]{" + MIN_NONCE + "," + MAX_NONCE + "}")) return nonce;
        throw invalid("enrollment_nonce: " + MIN_NONCE + " to " + MAX_NONCE + " random base64 or hex characters, the same on every retry of one"
                + " enrollment (got " + nonce.length() + " characters: " + Limits.quote(nonce) + ")");
    }

    /**
     * PERMISSION_DENIED naming the first GPU a report names that node did not register: a node reports on, drains and
     * holds only its own GPUs. Checked before anything of the report is written.
     */
    static void ownGpus(String node, Set<String> registered, TelemetryReport report) {
        for (int i = 0; i < report.getGpusCount(); i++) own(node, registered, "gpus[" + i + "].uuid", report.getGpus(i).getUuid());
        for (int i = 0; i < report.getEventsCount(); i++) own(node, registered, "events[" + i + "].gpu_uuid", report.getEvents(i).getGpuUuid());
        for (int i = 0; i < report.getViolationsCount(); i++) own(node, registered, "violations[" + i + "].gpu_uuid", report.getViolations(i).getGpuUuid());
    }

    private static void own(String node, Set<String> registered, String field, String uuid) {
        if (registered.contains(uuid)) return;
        throw Status.PERMISSION_DENIED.withDescription(field + ": GPU " + Limits.quote(uuid) + " is not a GPU node " + node + " registered; a node"
                + " reports only on its own GPUs (Register its inventory again if it changed)").asRuntimeException();
    }

    /** A report is about one host: no more GPUs, events or violations than one host can have between two reports. */
    static void checkSize(TelemetryReport report) {
        List<String> problems = new ArrayList<>();
        for (var part : List.of(Map.entry("gpus", report.getGpusCount()), Map.entry("events", report.getEventsCount()),
                Map.entry("violations", report.getViolationsCount()))) {
            if (part.getValue() > MAX_ENTRIES_PER_REPORT) problems.add(part.getKey() + ": " + part.getValue() + " in one report; the limit is " + MAX_ENTRIES_PER_REPORT);
        }
        if (!problems.isEmpty()) throw invalid("invalid telemetry report: " + String.join("; ", problems));
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
        return what + " on GPU " + Limits.printable(e.getGpuUuid(), MAX_ID) + (e.getDetail().isBlank() ? "" : ": " + Limits.printable(e.getDetail(), MAX_DETAIL));
    }

    /**
     * Utilization becomes a fraction, as the service reports utilization everywhere; of each GPU's processes the 32 holding
     * the most memory are kept, with their names cut to 128 printable characters.
     */
    static List<NodeStore.Reading> readings(List<dev.horizon.agent.v1.GpuTelemetry> gpus) {
        return gpus.stream().limit(MAX_GPUS).map(g -> new NodeStore.Reading(g.getUuid(), utilization(g), g.getMemoryUsedMib(),
                g.getProcessesList().stream().sorted(java.util.Comparator.comparingLong(dev.horizon.agent.v1.GpuProcess::getUsedMemoryMib).reversed())
                        .limit(MAX_PROCESSES).map(p -> new Gpu.Process(p.getPid(), p.getUsedMemoryMib(), Limits.printable(p.getName(), MAX_PROCESS_NAME)))
                        .toList())).toList();
    }

    /** 0 to 1, or null when the agent sends none (MIG) or something that is no percentage (NaN, negative, above 100). */
    private static Double utilization(dev.horizon.agent.v1.GpuTelemetry g) {
        if (!g.hasUtilizationPercent()) return null;
        double p = g.getUtilizationPercent();
        return p >= 0 && p <= 100 ? p / 100 : null;
    }

    /**
     * A violation as the service records it, matched to the one running job whose placement holds the GPU: on a GPU that
     * several jobs share (fractional placements) the process cannot be told apart by its GPU alone, so none is named.
     */
    static MemoryViolations.Violation violation(Node node, MemoryViolation v, List<JobRow> running, long now) {
        Gpu gpu = node.gpus().stream().filter(g -> g.uuid().equals(v.getGpuUuid())).findFirst().orElseThrow(() -> invalid(
                "violations: gpu_uuid " + Limits.quote(v.getGpuUuid()) + " is not a GPU of node " + node.name() + "; register the node's inventory first"));
        if (v.getAction() == MemoryViolation.Action.ACTION_UNSPECIFIED || v.getAction() == MemoryViolation.Action.UNRECOGNIZED) {
            throw invalid("violations: action is required (REPORTED, KILLED or KILL_FAILED) for pid " + v.getPid());
        }
        List<String> holders = running.stream().filter(j -> j.placement() != null && Placements.holds(j.placement(), node.name(), gpu.index()))
                .map(JobRow::id).toList();
        return new MemoryViolations.Violation(node.name(), gpu.uuid(), v.getPid(),
                v.getProcessName().isBlank() ? null : Limits.printable(v.getProcessName(), MAX_PROCESS_NAME), v.getUsedMib(), v.getAllowedMib(),
                Limits.printable(v.getShare(), MAX_DETAIL), v.getAction().name(), v.getObservedAtMs() > 0 ? v.getObservedAtMs() : now,
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
