package dev.horizon.service.planning;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.web.ApiTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The nodes lost for now (their agent silent past the heartbeat timeout): the plan's moment leaves them out, so a job only
 * they could hold was told "no room" or "no node can hold it" without a word of them. They come back when their agent
 * reports, and the job with them.
 */
public record LostNodes(List<Lost> nodes) {
    public static final LostNodes NONE = new LostNodes(List.of());

    /** A lost node's shape, and when its agent was last heard from (epoch milliseconds). */
    public record Lost(GpuNode shape, long lastSeenMillis) {
    }

    /** The lost ones among the nodes a job may ever run on ({@code NodeStore#registered}). */
    public static LostNodes of(List<Node> registered) {
        return new LostNodes(registered.stream().filter(n -> Node.LOST.equals(n.health()))
                .map(n -> new Lost(new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain()), n.lastSeen())).toList());
    }

    /** The moment's nodes that take work now: neither drained nor unhealthy. */
    public static List<GpuNode> takingWork(ClusterMoment m) {
        return m.nodes().stream().filter(n -> n.health() == NodeState.Health.READY).map(NodeState::node).toList();
    }

    /**
     * Why a job waits when no node that takes work now can hold it but those with the lost nodes could: the lost nodes
     * named, each since when its agent is silent, and what brings them back; null when a node up could hold it, or the
     * lost ones would not help. problemsOn: why the job does not fit a cluster (none: it fits); up: the nodes taking work.
     */
    public String onlyTheyHold(Function<Cluster, List<String>> problemsOn, List<GpuNode> up) {
        if (nodes.isEmpty() || (!up.isEmpty() && problemsOn.apply(new Cluster(up)).isEmpty())) return null;
        if (!problemsOn.apply(with(up, nodes)).isEmpty()) return null;
        // those that could hold it on their own, else all of them (it needs several): not a lost node of another model
        List<Lost> holders = nodes.stream().filter(n -> problemsOn.apply(with(up, List.of(n))).isEmpty()).toList();
        List<Lost> needed = holders.isEmpty() ? nodes : holders;
        // three named at most: the sentence is stored with every waiting job, and a rack going dark loses many at once
        List<String> named = needed.stream().limit(3).map(n -> n.shape().name() + " (lost: nothing heard from its agent since "
                + ApiTime.ofMillis(n.lastSeenMillis()) + ")").toList();
        boolean one = needed.size() == 1;
        return "no node that takes work now can hold it while " + String.join(", ", named) + (needed.size() > 3 ? " and " + (needed.size() - 3) + " more" : "")
                + (one ? " is" : " are") + " out; it waits until "
                + (one ? "that agent reports again (restart it, or bring the host back)" : "their agents report again (restart them, or bring the hosts back)");
    }

    private static Cluster with(List<GpuNode> up, List<Lost> lost) {
        List<GpuNode> all = new ArrayList<>(up);
        lost.forEach(n -> all.add(n.shape()));
        return new Cluster(all);
    }
}
