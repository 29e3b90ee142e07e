package dev.horizon.kit;

import dev.horizon.api.scheduler.InferenceServices.ClusterGpus;
import dev.horizon.api.scheduler.InferenceServices.Gpu;
import dev.horizon.api.scheduler.InferenceServices.Running;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which GPUs a scaled service's replicas serve on, reported to the control plane as the GPUs it holds. GPUs it holds
 * already stay (the last ones go first when it shrinks); each added replica takes its pods' GPUs whole or not at all (a
 * LeaderWorkerSet's group serves only together), each pod's on one node, free ones first, then GPUs lent to fill work,
 * then other running work's, newest first (it has lost least), never another service's; a replica that asks for it has
 * every pod in one NVLink domain. A job found on a held GPU is moved off it by the plan, which is how a service takes its
 * trough back: the adapter holding that job suspends it when the plan does. Nodes the plan holds for a waiting wide job
 * are taken last among free GPUs, and a shrinking service lets its GPUs there go first: a replica that stayed on one of
 * them kept that job waiting for good (wide-gangs seed 87, docs/bench.md).
 */
final class ServingGpus {
    /** Free, free on a node held for a wide job, lent as fill, running other work: the order GPUs are taken in. */
    private static final int FREE = 0;
    private static final int FREE_ON_HELD_NODE = 1;
    private static final int FILL = 2;
    private static final int WORK = 3;

    private ServingGpus() {
    }

    /** The uuids to hold for {@code replicas} replicas of this shape; fewer when the cluster has no room for the rest. */
    static List<String> choose(int replicas, ReplicaShape shape, List<String> heldNow, ClusterGpus cluster, Set<String> otherServices) {
        int wanted = replicas * shape.gpus();
        Map<String, Gpu> byUuid = new LinkedHashMap<>();
        cluster.gpus().forEach(g -> byUuid.put(g.uuid(), g));
        List<String> known = heldNow.stream().filter(byUuid::containsKey).toList();
        List<String> kept = known.size() > wanted ? onHeldNodesLast(known, shape.gpus(), byUuid, cluster.heldForWideJob()) : known;
        List<String> chosen = new ArrayList<>(kept.stream().limit(wanted).toList());
        Map<String, Rank> rank = ranks(cluster);
        Set<String> taken = new LinkedHashSet<>(chosen);
        taken.addAll(otherServices);
        while (chosen.size() + shape.gpus() <= wanted) {
            List<String> replica = oneReplica(shape, byUuid, rank, taken, nodesOf(chosen, byUuid), cluster.nvlinkDomains());
            if (replica.isEmpty()) break;
            chosen.addAll(replica);
            taken.addAll(replica);
        }
        return chosen;
    }

    /**
     * For a shrinking service, the GPUs held, a whole replica at a time (perReplica GPUs, in the order they were taken),
     * those of replicas with a pod on a node held for a wide job last: they go first, and no group is kept in part.
     */
    private static List<String> onHeldNodesLast(List<String> held, int perReplica, Map<String, Gpu> byUuid, Set<String> heldNodes) {
        if (heldNodes.isEmpty()) return held;
        List<String> first = new ArrayList<>(), last = new ArrayList<>();
        for (int i = 0; i < held.size(); i += perReplica) {
            List<String> replica = held.subList(i, Math.min(held.size(), i + perReplica));
            (replica.stream().anyMatch(uuid -> heldNodes.contains(byUuid.get(uuid).node())) ? last : first).addAll(replica);
        }
        first.addAll(last);
        return first;
    }

    /** How costly taking a GPU is: its tier, and among running work the newest first. */
    private record Rank(int tier, long startedAt) {
    }

    private static Map<String, Rank> ranks(ClusterGpus cluster) {
        Map<String, Rank> rank = new HashMap<>();
        for (Running r : cluster.running()) {
            for (Gpu g : r.gpus()) if (g.uuid() != null) rank.put(g.uuid(), new Rank(r.fill() ? FILL : WORK, r.startedAt()));
        }
        for (Gpu g : cluster.gpus()) {
            if (cluster.heldForWideJob().contains(g.node())) rank.putIfAbsent(g.uuid(), new Rank(FREE_ON_HELD_NODE, 0));
        }
        return rank;
    }

    /**
     * The GPUs of a whole replica at the cheapest tier that has room for all its pods, on nodes the service serves on
     * first; a replica that asks for one NVLink domain has all its pods in one (a node without a domain is its own).
     */
    private static List<String> oneReplica(ReplicaShape shape, Map<String, Gpu> byUuid, Map<String, Rank> rank, Set<String> taken, Set<String> servedOn,
                                           Map<String, String> domains) {
        Map<String, List<Gpu>> byDomain = new LinkedHashMap<>();
        for (Gpu g : byUuid.values()) {
            String domain = shape.oneDomain() ? domains.getOrDefault(g.node(), "node " + g.node()) : "";
            byDomain.computeIfAbsent(domain, d -> new ArrayList<>()).add(g);
        }
        for (int tier = FREE; tier <= WORK; tier++) {
            for (List<Gpu> within : byDomain.values()) {
                List<String> replica = podsWithin(shape, tier, within, rank, taken, servedOn);
                if (replica.size() == shape.gpus()) return replica;
            }
        }
        return List.of();
    }

    /** Each pod of the replica on one node among these GPUs, none costlier than the tier; fewer GPUs when they have no room. */
    private static List<String> podsWithin(ReplicaShape shape, int tier, List<Gpu> within, Map<String, Rank> rank, Set<String> taken, Set<String> servedOn) {
        Set<String> group = new LinkedHashSet<>(taken);
        List<String> replica = new ArrayList<>();
        for (int pod = 0; pod < shape.pods(); pod++) {
            List<String> one = onePod(shape.gpusPerPod(), tier, within, rank, group, servedOn);
            if (one.isEmpty()) break;
            replica.addAll(one);
            group.addAll(one);
        }
        return replica;
    }

    /** gpus GPUs of one node, none costlier than the tier. */
    private static List<String> onePod(int gpus, int tier, List<Gpu> within, Map<String, Rank> rank, Set<String> taken, Set<String> servedOn) {
        Comparator<Gpu> cheapest = Comparator.comparingInt((Gpu g) -> tier(g, rank)).thenComparing(g -> -rank.getOrDefault(g.uuid(), new Rank(FREE, 0)).startedAt())
                .thenComparingInt(Gpu::index);
        Map<String, List<Gpu>> byNode = new LinkedHashMap<>();
        within.stream().filter(g -> !taken.contains(g.uuid())).forEach(g -> byNode.computeIfAbsent(g.node(), n -> new ArrayList<>()).add(g));
        List<String> nodes = new ArrayList<>(byNode.keySet());
        nodes.sort(Comparator.comparing(n -> !servedOn.contains(n)));
        for (String node : nodes) {
            List<Gpu> room = byNode.get(node).stream().filter(g -> tier(g, rank) <= tier).sorted(cheapest).toList();
            if (room.size() >= gpus) return room.subList(0, gpus).stream().map(Gpu::uuid).toList();
        }
        return List.of();
    }

    private static int tier(Gpu g, Map<String, Rank> rank) {
        Rank r = rank.get(g.uuid());
        return r == null ? FREE : r.tier();
    }

    /** The nodes the chosen GPUs are on, in order: where the replicas are pinned. */
    static Set<String> nodesOf(List<String> uuids, Map<String, Gpu> byUuid) {
        Set<String> nodes = new LinkedHashSet<>();
        for (String uuid : uuids) if (byUuid.containsKey(uuid)) nodes.add(byUuid.get(uuid).node());
        return nodes;
    }
}
