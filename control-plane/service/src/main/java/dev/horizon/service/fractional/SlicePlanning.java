package dev.horizon.service.fractional;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.GpuState;
import dev.horizon.fractional.mig.MigPolicy;
import dev.horizon.fractional.mig.ReconfigurationPlanner;
import dev.horizon.service.mig.MigPolicyBody;
import dev.horizon.service.mig.MigPolicyStore;
import dev.horizon.service.nodes.CommandRequest;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeCommand;
import dev.horizon.service.nodes.NodePlatform;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The fractional side of a plan. Before it: tells the moment each agent GPU's MIG layout (from its reported MIG
 * devices), which GPUs are being re-partitioned (an ApplyMigLayout command unanswered, or applied inside its pool's
 * drain time, or applied and not yet reported by the agent), each node's MIG policy, and which nodes share their whole
 * GPUs by one device-plugin config. A node is in the pool of the first policy (by pool name) that lists its GPU model as
 * partitionable: nodes carry no pool label yet. After it: hands the re-partitionings the plan wants to the
 * ReconfigurationPlanner, which starts only those on GPUs with no running work and within the pool's limit on GPUs
 * reconfiguring at once, and asks for ApplyMigLayout for them and SetSharing for each GPU a time-slicing share started
 * on, or, on a device-plugin node (one sharing config for all its whole GPUs), one for the node. The plan writes those
 * commands in its own commit, so a plan that does not commit leaves none behind. A layout command that failed (or expired
 * unanswered) no longer holds its GPU: the GPU is planned again with the layout its agent reports.
 */
@ApplicationScoped
public class SlicePlanning {
    private static final Logger LOG = Logger.getLogger(SlicePlanning.class);
    /**
     * How long an applied layout the agent has not reported yet keeps its GPU out of planning: the agent re-registers on
     * its next tick after a change, but a plan in between (the GPU Operator's success comes from a label, not from the
     * agent) would see the old devices and ask for the layout again.
     */
    static final long AWAIT_REPORT_MILLIS = 120_000;
    /** Commands this old may still be waiting for the report: the GPU Operator may take its whole MIG timeout (15 min). */
    private static final long LAYOUT_LOOKBACK_MILLIS = 20 * 60_000;

    @Inject
    MigPolicyStore policies;
    @Inject
    CommandStore commands;
    @Inject
    NodePlatform platform;

    /**
     * The pools' policies for one plan, by node index; the nodes shared per node (device-plugin mode) by index, and those
     * of them with a SetSharing not answered yet.
     */
    public record Pools(Map<Integer, MigPolicy> byNode, Set<Integer> sharedPerNode, Set<String> sharingPending) {
    }

    /** A command the plan needs its node's agent to carry out. */
    public record Wanted(String node, CommandRequest action) {
    }

    /**
     * Per node (by index), each GPU's MIG state as the moment needs it, the pools' policies, and the time-slicing replicas
     * each node shared per node is configured with now (0: exclusive).
     */
    public record Prepared(List<List<NodeState.Gpu>> gpus, Pools pools, Map<Integer, Integer> sharingPerNode) {
    }

    /**
     * Each GPU as the plan must see it: its reported layout; being re-partitioned while a layout command is unanswered or
     * inside its pool's drain time (a failed or expired one no longer holds it); kept off when MIG is on with instances
     * whose layout cannot be read; lost when its agent said so.
     */
    public Prepared prepare(List<Node> usable, long nowMillis) {
        List<MigPolicyBody.Stored> stored = policies.all();
        Map<Integer, MigPolicy> byNode = new HashMap<>();
        // a layout change matters while unanswered or inside its pool's drain time, which is at most the longest one
        long longestDrain = stored.stream().mapToLong(MigPolicyBody.Stored::drainTimeSeconds).max().orElse(0) * 1000;
        List<NodeCommand> recent = commands.recentOrUnanswered(nowMillis - Math.max(longestDrain, LAYOUT_LOOKBACK_MILLIS));
        Map<String, Map<String, NodeCommand>> layoutCommands = latestLayoutCommands(recent);
        Set<Integer> sharedPerNode = new HashSet<>();
        Map<Integer, Integer> sharingReplicas = new HashMap<>();
        List<List<NodeState.Gpu>> all = new ArrayList<>();
        for (int n = 0; n < usable.size(); n++) {
            Node node = usable.get(n);
            boolean fromAgent = Node.FROM_AGENT.equals(node.source()); // only an agent can apply a layout or a sharing config
            if (fromAgent && platform.mode(node.name()).orElse(null) == GpuMode.DEVICE_PLUGIN) {
                sharedPerNode.add(n);
                sharingReplicas.put(n, platform.sharingReplicas(node.name()).orElse(0));
            }
            Optional<MigPolicy> policy = fromAgent ? poolOf(node, stored) : Optional.empty();
            final int index = n;
            policy.ifPresent(p -> byNode.put(index, p));
            Map<String, NodeCommand> latest = layoutCommands.getOrDefault(node.name(), Map.of());
            List<NodeState.Gpu> gpus = new ArrayList<>();
            for (Gpu g : node.gpus()) {
                boolean lost = Node.LOST.equals(g.health());
                if (!fromAgent) {
                    gpus.add(new NodeState.Gpu(null, null, lost));
                    continue;
                }
                NodeCommand c = latest.get(g.uuid());
                long drainMillis = policy.map(p -> p.drainTime().toMillis()).orElse(0L);
                // a failed layout leaves the GPU as it was, to be planned again at once; an applied one drains first
                boolean applied = c != null && NodeCommand.SUCCEEDED.equals(c.state());
                // the plan's now is whole seconds, a command's times are milliseconds: a pool without a drain time has none
                boolean draining = applied && drainMillis > 0 && nowMillis < c.createdAt() + drainMillis;
                if (c != null && unanswered(c) || draining || applied && awaitingReport(c, g, nowMillis)) {
                    MigLayout target = layoutOf(g.model(), c.action().applyMigLayout().slots());
                    gpus.add(new NodeState.Gpu(null, target == null ? MigLayout.unpartitioned(g.model()) : target, lost));
                } else if (g.migDevices() == null || g.migDevices().isEmpty()) {
                    gpus.add(new NodeState.Gpu(null, null, lost));
                } else {
                    MigLayout layout = reportedLayout(g);
                    // MIG on with instances we cannot place: keep off it until its agent reports a layout we can read
                    gpus.add(layout == null ? new NodeState.Gpu(null, MigLayout.unpartitioned(g.model()), lost) : new NodeState.Gpu(layout, null, lost));
                }
            }
            all.add(gpus);
        }
        Set<String> sharingPending = recent.stream().filter(c -> c.action().setSharing() != null && unanswered(c)).map(NodeCommand::node)
                .collect(Collectors.toSet());
        return new Prepared(all, new Pools(byNode, sharedPerNode, sharingPending), sharingReplicas);
    }

    /**
     * After the decision is applied to occupancy (preemptions released, starts occupied): the allowed re-partitionings and
     * the sharing changes, as commands for the plan to write.
     */
    public List<Wanted> apply(Pools pools, Decision decision, Occupancy occupancy, List<Node> usable, Instant now) {
        List<Wanted> out = new ArrayList<>();
        Map<MigPolicy, Map<String, MigLayout>> wanted = new LinkedHashMap<>();
        for (Decision.Reconfigure r : decision.reconfigurations()) {
            MigPolicy p = pools.byNode().get(r.node());
            if (p == null) continue;
            wanted.computeIfAbsent(p, k -> new LinkedHashMap<>()).put(uuid(usable, r.node(), r.gpu()), r.layout());
        }
        wanted.forEach((policy, layouts) -> {
            List<GpuState> gpus = new ArrayList<>();
            Map<String, String> nodeOf = new HashMap<>();
            pools.byNode().forEach((n, p) -> {
                if (p != policy) return;
                Node node = usable.get(n);
                for (Gpu g : node.gpus()) {
                    if (g.index() >= occupancy.cluster().nodes().get(n).gpus()) continue;
                    gpus.add(occupancy.migState(n, g.index(), g.uuid()));
                    nodeOf.put(g.uuid(), node.name());
                }
            });
            ReconfigurationPlanner.Plan plan = ReconfigurationPlanner.plan(policy, gpus, layouts, now);
            for (ReconfigurationPlanner.Reconfiguration r : plan.started()) {
                List<CommandRequest.Slot> slots = r.to().slots().stream().map(s -> new CommandRequest.Slot(s.profile(), s.start())).toList();
                out.add(new Wanted(nodeOf.get(r.gpuId()), new CommandRequest(new CommandRequest.ApplyMigLayout(r.gpuId(), slots), null, null)));
            }
            plan.deferred().forEach(d -> LOG.debugf("MIG layout for %s deferred: %s", d.gpuId(), d.reason()));
        });
        // a GPU's first share switches it to time-slicing; later ones need a new command only past the replicas it has
        Map<List<Integer>, Integer> added = new LinkedHashMap<>();
        for (Decision.Start s : decision.starts()) {
            for (Placement.Slice slice : s.placement().slices()) {
                if (slice.share() != null && !slice.share().isMig()) added.merge(List.of(slice.node(), slice.firstGpu()), 1, Integer::sum);
            }
        }
        added.forEach((gpu, count) -> {
            Node node = usable.get(gpu.get(0));
            if (!Node.FROM_AGENT.equals(node.source()) || pools.sharedPerNode().contains(gpu.get(0))) return;
            int after = occupancy.sharesOn(gpu.get(0), gpu.get(1)).size();
            int before = after - count;
            // time-slicing needs at least 2 replicas; one more than runs costs nothing and spares the next share a command
            if (before > 0 && after <= Math.max(2, before)) return;
            out.add(new Wanted(node.name(), new CommandRequest(null, new CommandRequest.SetSharing(uuid(usable, gpu.get(0), gpu.get(1)), "TIME_SLICING",
                    Math.max(2, after), null, null), null)));
        });
        exclusiveAgain(pools, decision, usable, out);
        shareNodes(pools, occupancy, usable, out);
        return out;
    }

    /**
     * A GPU an agent still time-slices (its newest SetSharing that did not fail shares it) goes back to exclusive when
     * whole-GPU work starts on it: shared, its device plugin hands it out as replicas, and the memory guard holds the job
     * to one replica's memory (in the demo's day, a training job on a GPU that had run two half-GPU actors was reported
     * over its share every few seconds). Read only for the nodes where whole GPUs start.
     */
    private void exclusiveAgain(Pools pools, Decision decision, List<Node> usable, List<Wanted> out) {
        Map<String, Map<String, CommandRequest.SetSharing>> sharing = new HashMap<>();
        for (Decision.Start s : decision.starts()) {
            for (Placement.Slice slice : s.placement().slices()) {
                Node node = usable.get(slice.node());
                if (slice.share() != null || pools.sharedPerNode().contains(slice.node()) || !Node.FROM_AGENT.equals(node.source())) continue;
                Map<String, CommandRequest.SetSharing> ofNode = sharing.computeIfAbsent(node.name(), commands::sharingByGpu);
                for (int g = slice.firstGpu(); g < slice.firstGpu() + slice.count(); g++) {
                    String uuid = uuid(usable, slice.node(), g);
                    CommandRequest.SetSharing now = ofNode.get(uuid);
                    if (now == null || "EXCLUSIVE".equals(now.mode())) continue;
                    out.add(new Wanted(node.name(), new CommandRequest(null, new CommandRequest.SetSharing(uuid, "EXCLUSIVE", null, null, null), null)));
                }
            }
        }
    }

    /**
     * Device-plugin nodes: one config for the node, with the replica count its shares have (the allocator gives a node's
     * shares one count), asked for when it differs from the node's config; a node whose shares all ended goes back to
     * exclusive GPUs. One command at a time per node.
     */
    private void shareNodes(Pools pools, Occupancy occupancy, List<Node> usable, List<Wanted> out) {
        for (int n : pools.sharedPerNode()) {
            Node node = usable.get(n);
            if (pools.sharingPending().contains(node.name())) continue;
            Optional<GpuShare> share = timeSlices(occupancy, n).findFirst();
            int wanted = share.map(GpuShare::timeSlicingReplicas).orElse(0);
            if (wanted == platform.sharingReplicas(node.name()).orElse(0)) continue;
            String gpu = node.gpus().get(0).uuid(); // the config covers every whole GPU of the node; any names it
            out.add(new Wanted(node.name(), new CommandRequest(null, wanted == 0 ? new CommandRequest.SetSharing(gpu, "EXCLUSIVE", null, null, null)
                    : new CommandRequest.SetSharing(gpu, "TIME_SLICING", wanted, null, null), null)));
        }
    }

    private static Stream<GpuShare> timeSlices(Occupancy occupancy, int node) {
        return IntStream.range(0, occupancy.cluster().nodes().get(node).gpus()).boxed()
                .flatMap(g -> occupancy.sharesOn(node, g).stream()).filter(s -> !s.isMig());
    }

    /** An applied layout whose instances (profiles and counts) the agent does not report yet, within the wait. */
    private static boolean awaitingReport(NodeCommand c, Gpu g, long nowMillis) {
        if (c.finishedAt() == null || nowMillis >= c.finishedAt() + AWAIT_REPORT_MILLIS) return false;
        Map<String, Long> asked = c.action().applyMigLayout().slots().stream().collect(Collectors.groupingBy(CommandRequest.Slot::profile, Collectors.counting()));
        List<Gpu.MigDevice> devices = g.migDevices() == null ? List.of() : g.migDevices();
        return !asked.equals(devices.stream().collect(Collectors.groupingBy(Gpu.MigDevice::profile, Collectors.counting())));
    }

    private static boolean unanswered(NodeCommand c) {
        return NodeCommand.QUEUED.equals(c.state()) || NodeCommand.SENT.equals(c.state());
    }

    static Optional<MigPolicy> poolOf(Node node, List<MigPolicyBody.Stored> stored) {
        for (MigPolicyBody.Stored s : stored) {
            if (s.partitionableModels().contains(node.gpuModel())) {
                MigPolicyBody body = new MigPolicyBody(s.partitionableModels(), s.allowedProfiles(), s.layout(), s.drainTimeSeconds(),
                        s.maxConcurrentReconfigurations());
                return Optional.of(body.policy(s.pool()));
            }
        }
        return Optional.empty();
    }

    /** The layout of the MIG devices the agent reports, or null when an instance's start is unknown or the layout invalid. */
    static MigLayout reportedLayout(Gpu g) {
        List<CommandRequest.Slot> slots = new ArrayList<>();
        for (Gpu.MigDevice d : g.migDevices()) {
            if (d.placementStart() == null) return null;
            slots.add(new CommandRequest.Slot(d.profile(), d.placementStart()));
        }
        return layoutOf(g.model(), slots);
    }

    private static MigLayout layoutOf(String model, List<CommandRequest.Slot> slots) {
        try {
            return new MigLayout(model, slots.stream().map(s -> new MigLayout.Slot(s.profile(), s.start())).toList());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Per node and GPU uuid, its newest ApplyMigLayout command among these (recent or unanswered, newest first). */
    private static Map<String, Map<String, NodeCommand>> latestLayoutCommands(List<NodeCommand> recent) {
        Map<String, Map<String, NodeCommand>> latest = new HashMap<>();
        for (NodeCommand c : recent) { // newest first
            if (c.action().applyMigLayout() == null) continue;
            latest.computeIfAbsent(c.node(), k -> new HashMap<>()).putIfAbsent(c.action().applyMigLayout().gpuUuid(), c);
        }
        return latest;
    }

    private static String uuid(List<Node> usable, int node, int gpu) {
        return usable.get(node).gpus().stream().filter(g -> g.index() == gpu).findFirst().map(Gpu::uuid)
                .orElseThrow(() -> new IllegalStateException("node " + usable.get(node).name() + " has no GPU " + gpu));
    }
}
