package dev.horizon.service.planning;

import dev.horizon.allocator.actions.Ranking;
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
 * The registered nodes out of the plan for now: lost (their agent silent past the heartbeat timeout) or waiting for an
 * admin's approval. The plan's moment leaves them out, so a job only they could hold was told "no room" or "no node can
 * hold it" without a word of them. They come back when their agent reports or an admin approves them, and the job with
 * them.
 */
public record NodesOut(List<Out> nodes) {
    public static final NodesOut NONE = new NodesOut(List.of());

    /** A node out of the plan: its shape, and whether it is lost (since lastSeenMillis, epoch milliseconds) or awaits approval. */
    public record Out(GpuNode shape, boolean lost, long lastSeenMillis) {
        String said() {
            return shape.name() + (lost ? " (lost: nothing heard from its agent since " + ApiTime.ofMillis(lastSeenMillis) + ")"
                    : " (awaiting an admin's approval)");
        }
    }

    /** The lost and the unapproved among the nodes a job may ever run on ({@code NodeStore#registered}). */
    public static NodesOut of(List<Node> registered) {
        return new NodesOut(registered.stream().filter(n -> Node.LOST.equals(n.health()) || n.pendingApproval())
                .map(n -> new Out(new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain()), Node.LOST.equals(n.health()),
                        n.lastSeen())).toList());
    }

    /** The moment's nodes that take work now: neither drained nor unhealthy. */
    public static List<GpuNode> takingWork(ClusterMoment m) {
        return m.nodes().stream().filter(n -> n.health() == NodeState.Health.READY).map(NodeState::node).toList();
    }

    /**
     * Why a job waits when no node that takes work now can hold it but those with the nodes out could: the nodes out
     * named, each with what keeps it out, and what brings them back; null when a node up could hold it, or the nodes out
     * would not help. problemsOn: why the job does not fit a cluster (none: it fits); up: the nodes taking work.
     */
    public String onlyTheyHold(Function<Cluster, List<String>> problemsOn, List<GpuNode> up) {
        if (nodes.isEmpty() || (!up.isEmpty() && problemsOn.apply(new Cluster(up)).isEmpty())) return null;
        if (!problemsOn.apply(with(up, nodes)).isEmpty()) return null;
        // those that could hold it on their own, else all of them (it needs several): not a node of another model
        List<Out> holders = nodes.stream().filter(n -> problemsOn.apply(with(up, List.of(n))).isEmpty()).toList();
        List<Out> needed = holders.isEmpty() ? nodes : holders;
        return "no node that takes work now can hold it while " + Ranking.upToThree(needed.stream().map(Out::said).toList())
                + (needed.size() == 1 ? " is" : " are") + " out; it waits until " + back(needed);
    }

    /** What brings the nodes back: their agents reporting, an admin's approval (the command named), or either. */
    private static String back(List<Out> needed) {
        boolean lost = needed.stream().anyMatch(Out::lost), approval = needed.stream().anyMatch(n -> !n.lost());
        if (lost && approval) return "they are back (a lost node when its agent reports again; the others when an admin runs ./horizon node approve NAME)";
        if (needed.size() == 1) {
            return lost ? "that agent reports again (restart it, or bring the host back)"
                    : "an admin approves it (./horizon node approve " + needed.get(0).shape().name() + ")";
        }
        return lost ? "their agents report again (restart them, or bring the hosts back)" : "an admin approves them (./horizon node approve NAME, for each)";
    }

    private static Cluster with(List<GpuNode> up, List<Out> out) {
        List<GpuNode> all = new ArrayList<>(up);
        out.forEach(n -> all.add(n.shape()));
        return new Cluster(all);
    }
}
