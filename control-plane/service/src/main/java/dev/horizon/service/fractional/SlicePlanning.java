package dev.horizon.service.fractional;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.Occupancy;
import dev.horizon.allocator.Placement;
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
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The fractional side of a plan. Before it: tells the allocator each agent GPU's MIG layout (from its reported MIG
 * devices), which GPUs are being re-partitioned (an ApplyMigLayout command unanswered, or answered inside its pool's
 * drain time), and each node's MIG policy. A node is in the pool of the first policy (by pool name) that lists its GPU
 * model as partitionable: nodes carry no pool label yet. After it: hands the re-partitionings the plan wants to the
 * ReconfigurationPlanner, which starts only those on GPUs with no running work and within the pool's limit on GPUs
 * reconfiguring at once, and asks for ApplyMigLayout for them and SetSharing for each GPU a time-slicing share started
 * on. The plan writes those commands in its own commit, so a plan that does not commit leaves none behind. A layout
 * command that failed (or expired unanswered) no longer holds its GPU: the GPU is planned again with the layout its
 * agent reports.
 */
@ApplicationScoped
public class SlicePlanning {
    private static final Logger LOG = Logger.getLogger(SlicePlanning.class);

    @Inject
    MigPolicyStore policies;
    @Inject
    CommandStore commands;

    /** The pools' policies for one plan, by node index. */
    public record Pools(Map<Integer, MigPolicy> byNode) {
    }

    /** A command the plan needs its node's agent to carry out. */
    public record Wanted(String node, CommandRequest action) {
    }

    /** Call on an occupancy that holds no work yet. */
    public Pools prepare(List<Node> usable, Occupancy occupancy, long nowMillis) {
        List<MigPolicyBody.Stored> stored = policies.all();
        Map<Integer, MigPolicy> byNode = new HashMap<>();
        // a layout change matters while unanswered or inside its pool's drain time, which is at most the longest one
        long longestDrain = stored.stream().mapToLong(MigPolicyBody.Stored::drainTimeSeconds).max().orElse(0) * 1000;
        Map<String, Map<String, NodeCommand>> layoutCommands = latestLayoutCommands(nowMillis - longestDrain);
        for (int n = 0; n < usable.size(); n++) {
            Node node = usable.get(n);
            if (!Node.FROM_AGENT.equals(node.source())) continue; // only an agent can apply a layout
            Optional<MigPolicy> policy = poolOf(node, stored);
            final int index = n;
            policy.ifPresent(p -> {
                occupancy.setMigPolicy(index, p);
                byNode.put(index, p);
            });
            Map<String, NodeCommand> latest = layoutCommands.getOrDefault(node.name(), Map.of());
            for (Gpu g : node.gpus()) {
                if (g.index() >= occupancy.cluster().nodes().get(n).gpus()) continue;
                NodeCommand c = latest.get(g.uuid());
                long drainMillis = policy.map(p -> p.drainTime().toMillis()).orElse(0L);
                boolean unanswered = c != null && (NodeCommand.QUEUED.equals(c.state()) || NodeCommand.SENT.equals(c.state()));
                boolean draining = c != null && NodeCommand.SUCCEEDED.equals(c.state()) && nowMillis < c.createdAt() + drainMillis;
                if (unanswered || draining) {
                    occupancy.markReconfiguring(n, g.index(), layoutOf(g.model(), c.action().applyMigLayout().slots()));
                    continue;
                }
                if (g.migDevices() == null || g.migDevices().isEmpty()) continue;
                MigLayout layout = reportedLayout(g);
                if (layout == null) occupancy.markReconfiguring(n, g.index(), null); // MIG on with instances we cannot place: keep off it
                else occupancy.setMigLayout(n, g.index(), layout);
            }
        }
        return new Pools(byNode);
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
            if (!Node.FROM_AGENT.equals(node.source())) return;
            int after = occupancy.sharesOn(gpu.get(0), gpu.get(1)).size();
            int before = after - count;
            // time-slicing needs at least 2 replicas; one more than runs costs nothing and spares the next share a command
            if (before > 0 && after <= Math.max(2, before)) return;
            out.add(new Wanted(node.name(), new CommandRequest(null, new CommandRequest.SetSharing(uuid(usable, gpu.get(0), gpu.get(1)), "TIME_SLICING",
                    Math.max(2, after), null, null), null)));
        });
        return out;
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

    /** Per node and GPU uuid, its newest ApplyMigLayout command among those created since sinceMillis or unanswered. */
    private Map<String, Map<String, NodeCommand>> latestLayoutCommands(long sinceMillis) {
        Map<String, Map<String, NodeCommand>> latest = new HashMap<>();
        for (NodeCommand c : commands.recentOrUnanswered(sinceMillis)) { // newest first
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
