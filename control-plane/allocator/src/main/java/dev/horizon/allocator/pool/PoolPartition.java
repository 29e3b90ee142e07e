package dev.horizon.allocator.pool;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which node pools (the nodes of one GPU model) can be planned apart. Two pools are dependent when
 * some work could go to either: a pending job or inference service accepting both models, or a
 * running job spanning both. Dependent pools form one group, planned together; groups share
 * nothing, so each is planned on its own. With fair share every pool is one group, because a team's
 * owed share counts across the whole cluster.
 *
 * @param groups      the groups, in the order of their first node
 * @param unplaceable pending jobs no pool can take, with the reason: no pool of a model they accept,
 *                    or too few GPUs in those pools for their smallest width
 */
public record PoolPartition(List<Group> groups, Map<String, String> unplaceable) {

    /**
     * Pools planned together. nodes: the cluster's node indices, ascending; pending, running and
     * services: the ids (names) of the work planned in this group.
     */
    public record Group(List<String> models, int[] nodes, Set<String> pending, Set<String> running, Set<String> services) {
        public int gpus(PlanningContext ctx) {
            int sum = 0;
            for (int n : nodes) sum += ctx.cluster().nodes().get(n).gpus();
            return sum;
        }
    }

    public static PoolPartition of(PlanningContext ctx, PoolConstraints constraints) {
        Map<String, List<Integer>> poolNodes = new LinkedHashMap<>();
        List<GpuNode> nodes = ctx.cluster().nodes();
        for (int n = 0; n < nodes.size(); n++) poolNodes.computeIfAbsent(nodes.get(n).gpuModel(), k -> new ArrayList<>()).add(n);
        List<String> models = new ArrayList<>(poolNodes.keySet());
        Map<String, Integer> poolOf = new LinkedHashMap<>();
        int[] poolGpus = new int[models.size()];
        for (int p = 0; p < models.size(); p++) {
            poolOf.put(models.get(p), p);
            for (int n : poolNodes.get(models.get(p))) poolGpus[p] += nodes.get(n).gpus();
        }
        int[] parent = new int[models.size()];
        for (int p = 0; p < parent.length; p++) parent[p] = p;
        if (ctx.fairShare() != null) for (int p = 1; p < parent.length; p++) union(parent, 0, p);

        Map<String, String> unplaceable = new LinkedHashMap<>();
        Map<String, Integer> pendingPool = pendingPools(ctx, constraints, models, poolGpus, parent, unplaceable);
        Map<String, Integer> runningPool = new LinkedHashMap<>();
        for (RunningJob r : ctx.running()) {
            int first = poolOf.get(nodes.get(r.placement().slices().get(0).node()).gpuModel());
            for (Placement.Slice s : r.placement().slices()) union(parent, first, poolOf.get(nodes.get(s.node()).gpuModel()));
            runningPool.put(r.id(), first);
        }
        Map<String, Integer> servicePool = new LinkedHashMap<>();
        for (String name : ctx.services().keySet()) {
            List<Integer> accepted = accepted(models, constraints.ofService(name));
            if (accepted.isEmpty()) {
                throw new IllegalArgumentException("inference service " + name + " accepts GPU models " + constraints.ofService(name)
                        + " but the pools are " + describe(models, poolGpus));
            }
            for (int p : accepted) union(parent, accepted.get(0), p);
            servicePool.put(name, accepted.get(0));
        }
        return new PoolPartition(groups(models, poolNodes, parent, pendingPool, runningPool, servicePool), Map.copyOf(unplaceable));
    }

    /**
     * The pool each placeable pending job is planned in (the first it accepts), joining the pools it accepts; a job no pool
     * can take goes to unplaceable with the reason.
     */
    private static Map<String, Integer> pendingPools(PlanningContext ctx, PoolConstraints constraints, List<String> models, int[] poolGpus,
                                                     int[] parent, Map<String, String> unplaceable) {
        Map<String, Integer> pendingPool = new LinkedHashMap<>();
        for (PendingJob j : ctx.pending()) {
            List<Integer> accepted = accepted(models, constraints.ofJob(j.id()));
            int gpus = 0;
            for (int p : accepted) gpus += poolGpus[p];
            if (gpus < j.minGpus()) {
                unplaceable.put(j.id(), accepted.isEmpty()
                        ? "no node pool has a GPU model it accepts " + constraints.ofJob(j.id()) + "; the pools are " + describe(models, poolGpus)
                        : "its pools " + describe(accepted, models, poolGpus) + " hold fewer GPUs than the " + j.minGpus() + " it needs at least");
                continue;
            }
            for (int p : accepted) union(parent, accepted.get(0), p);
            pendingPool.put(j.id(), accepted.get(0));
        }
        return pendingPool;
    }

    /** One group per root of the joined pools, in the order of the pools' first nodes (pools are already in that order). */
    private static List<Group> groups(List<String> models, Map<String, List<Integer>> poolNodes, int[] parent, Map<String, Integer> pendingPool,
                                      Map<String, Integer> runningPool, Map<String, Integer> servicePool) {
        int[] groupOf = new int[models.size()];
        Map<Integer, Integer> groupOfRoot = new TreeMap<>();
        for (int p = 0; p < models.size(); p++) groupOf[p] = groupOfRoot.computeIfAbsent(find(parent, p), r -> groupOfRoot.size());
        int count = groupOfRoot.size();
        List<List<String>> groupModels = new ArrayList<>();
        List<List<Integer>> groupNodes = new ArrayList<>();
        for (int g = 0; g < count; g++) {
            groupModels.add(new ArrayList<>());
            groupNodes.add(new ArrayList<>());
        }
        for (int p = 0; p < models.size(); p++) {
            groupModels.get(groupOf[p]).add(models.get(p));
            groupNodes.get(groupOf[p]).addAll(poolNodes.get(models.get(p)));
        }
        List<Set<String>> pending = byGroup(pendingPool, groupOf, count), running = byGroup(runningPool, groupOf, count),
                services = byGroup(servicePool, groupOf, count);
        List<Group> groups = new ArrayList<>();
        for (int g = 0; g < count; g++) {
            groupNodes.get(g).sort(null);
            groups.add(new Group(List.copyOf(groupModels.get(g)), groupNodes.get(g).stream().mapToInt(Integer::intValue).toArray(),
                    pending.get(g), running.get(g), services.get(g)));
        }
        return List.copyOf(groups);
    }

    private static List<Integer> accepted(List<String> models, Set<String> wanted) {
        List<Integer> out = new ArrayList<>();
        for (int p = 0; p < models.size(); p++) if (wanted.isEmpty() || wanted.contains(models.get(p))) out.add(p);
        return out;
    }

    /** The ids of the work, split by the group of the pool each was put in. */
    private static List<Set<String>> byGroup(Map<String, Integer> poolOfWork, int[] groupOf, int count) {
        List<Set<String>> out = new ArrayList<>();
        for (int g = 0; g < count; g++) out.add(new java.util.LinkedHashSet<>());
        poolOfWork.forEach((id, pool) -> out.get(groupOf[pool]).add(id));
        return out;
    }

    private static String describe(List<String> models, int[] gpus) {
        List<Integer> all = new ArrayList<>();
        for (int p = 0; p < models.size(); p++) all.add(p);
        return describe(all, models, gpus);
    }

    private static String describe(List<Integer> pools, List<String> models, int[] gpus) {
        List<String> parts = new ArrayList<>();
        for (int p : pools) parts.add(models.get(p) + " (" + gpus[p] + " GPUs)");
        return String.join(", ", parts);
    }

    private static int find(int[] parent, int p) {
        while (parent[p] != p) {
            parent[p] = parent[parent[p]];
            p = parent[p];
        }
        return p;
    }

    private static void union(int[] parent, int a, int b) {
        int ra = find(parent, a), rb = find(parent, b);
        if (ra != rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
    }
}
