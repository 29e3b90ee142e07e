package dev.horizon.allocator.placement;

import dev.horizon.allocator.fragmentation.TargetWorkload;
import dev.horizon.allocator.fragmentation.WorkloadTask;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.api.mig.MigGeometry;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.MigPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Places fractional work on slices of GPUs with the fragmentation score of the openb experiment: each candidate GPU is
 * scored by how much of the target workload's demand the node could no longer use afterwards (TargetWorkload, FGD's
 * gradient on its 0-100 scale), the best score wins, and among equal scores the fullest GPU (best fit), then the lowest
 * node and GPU index. The target workload is the demand waiting now, whole and fractional. A GPU that already holds
 * slices (or is partitioned) beats a whole free one whatever the score: opening a free GPU takes it from whole-GPU work
 * for as long as any slice stays on it, which the score (blind to time) does not see.
 */
public final class SlicePlacer {
    private final List<PendingJob> pending;
    /** Built when a slice first has a GPU to be scored on: on a full cluster most decisions have none. */
    private TargetWorkload workload;
    private final List<PendingJob> migDemand;
    /** Instances of a coming layout that waiting jobs already count on, by GPU and MIG profile. */
    private final Map<Claim, Integer> claimed = new HashMap<>();

    private record Claim(GpuRef gpu, String profile) {
    }

    /** pending: the jobs waiting now, in value order; their shapes are the workload placements are judged against. */
    public SlicePlacer(List<PendingJob> pending) {
        this.pending = List.copyOf(pending);
        this.migDemand = pending.stream().filter(j -> j.slice() != null && j.slice().isMig()).toList();
    }

    /** The demand waiting now, whole and fractional, as FGD's target workload. */
    private TargetWorkload workload() {
        if (workload != null) return workload;
        List<WorkloadTask> tasks = new ArrayList<>();
        for (PendingJob j : pending) {
            SliceRequest r = j.slice();
            if (r == null) tasks.add(new WorkloadTask(j.id(), 0, 0, j.gpus(), WorkloadTask.MILLI, Set.of()));
            else for (int i = 0; i < j.gpus(); i++) tasks.add(new WorkloadTask(j.id(), 0, 0, 1, milliOf(r), r.gpuTypes()));
        }
        workload = TargetWorkload.complete(tasks);
        return workload;
    }

    /**
     * What became of one job: placed on slices, or waiting for a GPU to be re-partitioned for it, or waiting (reason).
     * reconfigure is on a GPU that holds no work: idle and partitioned, or (when fresh GPUs may be used) whole and free.
     */
    public record Outcome(Placement placement, Decision.Reconfigure reconfigure, String reason, boolean awaitsLayout) {
    }

    /**
     * Slices for every replica of j at once (gang), on one node or one NVLink domain when its topology asks for it, or a
     * re-partitioning that would make room, or why not.
     * freshGpus: whether a GPU that is free for whole-GPU work may be opened for slices (the plan has room for it now).
     */
    public Outcome place(Occupancy occupancy, PendingJob j, boolean freshGpus) {
        SliceRequest r = j.slice();
        Occupancy trial = occupancy;
        List<Placement.Slice> slices = List.of();
        // a job that asks for one node (one NVLink domain) is tried on each in turn, in index order
        for (boolean[] group : groups(occupancy.cluster(), j.rules().topology())) {
            trial = occupancy.copy();
            slices = new ArrayList<>();
            for (int i = 0; i < j.gpus(); i++) {
                Placement.Slice s = best(trial, r, freshGpus, group);
                if (s == null) break;
                trial.occupy(new Placement(List.of(s)));
                slices.add(s);
            }
            if (slices.size() == j.gpus()) {
                Placement oneModel = oneModel(occupancy, j, freshGpus, group);
                if (oneModel != null) return new Outcome(oneModel, null, null, false);
            }
        }
        String what = j.gpus() + " x " + (r.isMig() ? r.migProfile() : r.milli() + " milli-GPU with " + r.memoryMiB() + " MiB");
        // replicas that must stay together wait for instances for all of them in one place
        int missing = j.rules().topology() == PlacementRules.Topology.ANY ? j.gpus() - slices.size() : j.gpus();
        if (r.isMig()) {
            String promised = claimPromised(trial, r.migProfile(), missing);
            if (promised != null) return new Outcome(null, null, "waiting for " + promised + " to be re-partitioned for its " + what, true);
            Decision.Reconfigure re = reconfiguration(trial, j, freshGpus);
            if (re != null) {
                claim(re.node(), re.gpu(), r.migProfile(), missing);
                return new Outcome(null, re, "waiting for GPU " + re.gpu() + " of " + occupancy.cluster().nodes().get(re.node()).name()
                        + " to be re-partitioned to " + re.layout().slots() + " for its " + what, false);
            }
        }
        return new Outcome(null, null, "no GPU has room for " + what + (freshGpus ? "" : " beside work it already holds")
                + (r.isMig() ? " in its current MIG layout, and no idle GPU may be re-partitioned for it" : ""), false);
    }

    /** Slices for every replica of j inside group (null: any node), on one GPU model unless j may mix them ({@link ModelGroups}), or null. */
    private Placement oneModel(Occupancy occupancy, PendingJob j, boolean freshGpus, boolean[] group) {
        Cluster cluster = occupancy.cluster();
        return ModelGroups.place(ModelGroups.models(cluster), group, cluster.nodes().size(), j.rules().mixModels(), nodes -> {
            Occupancy trial = occupancy.copy();
            List<Placement.Slice> slices = new ArrayList<>();
            for (int i = 0; i < j.gpus(); i++) {
                Placement.Slice s = best(trial, j.slice(), freshGpus, nodes);
                if (s == null) return null;
                trial.occupy(new Placement(List.of(s)));
                slices.add(s);
            }
            return new Placement(slices);
        }, ModelGroups::nodesOf);
    }

    /**
     * Instances of profile that GPUs being re-partitioned will have and no earlier job has claimed: a job they cover
     * waits for them rather than having another GPU re-partitioned. Claims the count and names the GPUs, or null (and
     * claims nothing) when they do not cover it.
     */
    private String claimPromised(Occupancy o, String profile, int count) {
        Map<Claim, Integer> take = new HashMap<>();
        List<String> where = new ArrayList<>();
        int left = count;
        for (GpuRef gpu : o.fractionalGpus()) {
            MigLayout target = o.reconfiguringTo(gpu.node(), gpu.gpu());
            if (target == null || left == 0) continue;
            Claim k = new Claim(gpu, profile);
            int offered = (int) target.slots().stream().filter(s -> s.profile().equals(profile)).count();
            int free = offered - claimed.getOrDefault(k, 0);
            if (free <= 0) continue;
            int n = Math.min(free, left);
            take.put(k, n);
            left -= n;
            where.add("GPU " + gpu.gpu() + " of " + o.cluster().nodes().get(gpu.node()).name());
        }
        if (left > 0) return null;
        take.forEach((k, n) -> claimed.merge(k, n, Integer::sum));
        return String.join(", ", where);
    }

    private void claim(int node, int gpu, String profile, int count) {
        claimed.merge(new Claim(new GpuRef(node, gpu), profile), count, Integer::sum);
    }

    /** The node sets a job's replicas may spread over: every node (null), or each node, or each NVLink domain. */
    private static List<boolean[]> groups(Cluster cluster, PlacementRules.Topology topology) {
        List<boolean[]> groups = new ArrayList<>();
        if (topology == PlacementRules.Topology.ANY) {
            groups.add(null);
            return groups;
        }
        Map<String, boolean[]> byKey = new java.util.LinkedHashMap<>();
        for (int n = 0; n < cluster.nodes().size(); n++) {
            String key = topology == PlacementRules.Topology.SAME_NODE ? "node:" + n : cluster.domainOf(n);
            byKey.computeIfAbsent(key, k -> new boolean[cluster.nodes().size()])[n] = true;
        }
        groups.addAll(byKey.values());
        return groups;
    }

    private Placement.Slice best(Occupancy o, SliceRequest r, boolean freshGpus, boolean[] group) {
        Cluster cluster = o.cluster();
        Placement.Slice best = null;
        boolean bestFresh = true;
        double bestScore = Double.NEGATIVE_INFINITY;
        int bestFree = Integer.MAX_VALUE;
        int share = milliOf(r);
        for (int n = 0; n < cluster.nodes().size(); n++) {
            GpuNode node = cluster.nodes().get(n);
            if ((group != null && !group[n]) || o.isDrained(n) || !r.fitsModel(node.gpuModel(), node.gpuMemoryMiB())) continue;
            int[] left = null;
            double before = 0;
            for (int g = 0; g < node.gpus(); g++) {
                GpuShare candidate = candidate(o, n, g, r, freshGpus);
                if (candidate == null) continue;
                if (left == null) {
                    left = new int[node.gpus()];
                    for (int k = 0; k < left.length; k++) left[k] = o.freeMilli(n, k);
                    before = workload().fragment(node.gpuModel(), Integer.MAX_VALUE, Long.MAX_VALUE, left);
                }
                int free = left[g];
                left[g] = Math.max(0, free - share);
                double score = TargetWorkload.scale(before - workload().fragment(node.gpuModel(), Integer.MAX_VALUE, Long.MAX_VALUE, left));
                left[g] = free;
                boolean fresh = o.isWholeFree(n, g);
                boolean better = fresh != bestFresh ? !fresh : score > bestScore || (score == bestScore && free < bestFree);
                if (best == null || better) {
                    best = new Placement.Slice(n, g, 1, candidate);
                    bestFresh = fresh;
                    bestScore = score;
                    bestFree = free;
                }
            }
        }
        return best;
    }

    /** The share r would take on that GPU now, or null when it cannot. */
    private static GpuShare candidate(Occupancy o, int n, int g, SliceRequest r, boolean freshGpus) {
        if (r.isMig()) {
            MigLayout layout = o.migLayout(n, g);
            if (layout == null) return null;
            for (MigLayout.Slot s : layout.slots()) {
                GpuShare share = GpuShare.mig(s.profile(), s.start());
                if (s.profile().equals(r.migProfile()) && o.canHold(n, g, share)) return share;
            }
            return null;
        }
        GpuShare share = GpuShare.timeSlice(r.milli(), r.memoryMiB());
        if (!freshGpus && o.sharesOn(n, g).isEmpty()) return null;
        return o.canHold(n, g, share) ? share : null;
    }

    /**
     * An idle GPU to re-partition for j, where its pool's policy is dynamic, partitions the model and allows the
     * profile: first one already partitioned (it serves no whole-GPU work, so the plan loses nothing), then, when fresh
     * GPUs may be used, a free one on the fullest node. Never a GPU that holds work or is being re-partitioned. The new
     * layout holds j's replicas, then, where room is left, the other waiting MIG demand for that model in value order,
     * then more instances of j's profile: slices left out of the layout serve nobody until the next re-partitioning,
     * while more of the profile just asked for serve the next such job without one.
     */
    private Decision.Reconfigure reconfiguration(Occupancy o, PendingJob j, boolean freshGpus) {
        Cluster cluster = o.cluster();
        int bestNode = -1, bestGpu = -1, bestRank = Integer.MAX_VALUE;
        for (int n = 0; n < cluster.nodes().size(); n++) {
            GpuNode node = cluster.nodes().get(n);
            MigPolicy policy = o.migPolicy(n);
            if (o.isDrained(n) || !mayPartition(policy, node.gpuModel(), j.slice())) continue;
            for (int g = 0; g < node.gpus(); g++) {
                if (o.isReconfiguring(n, g) || !o.sharesOn(n, g).isEmpty()) continue;
                int rank;
                if (o.migLayout(n, g) != null) rank = 0;
                else if (freshGpus && o.isWholeFree(n, g)) rank = 1 + o.freeOn(n);
                else continue;
                if (rank < bestRank) {
                    bestRank = rank;
                    bestNode = n;
                    bestGpu = g;
                }
            }
        }
        if (bestNode < 0) return null;
        String model = cluster.nodes().get(bestNode).gpuModel();
        MigPolicy policy = o.migPolicy(bestNode);
        List<String> wanted = new ArrayList<>();
        for (int i = 0; i < j.gpus(); i++) wanted.add(j.slice().migProfile());
        for (PendingJob other : migDemand) {
            if (other.id().equals(j.id()) || !mayPartition(policy, model, other.slice())) continue;
            for (int i = 0; i < other.gpus(); i++) wanted.add(other.slice().migProfile());
        }
        for (int i = 0; i < MigGeometry.COMPUTE_SLICES; i++) wanted.add(j.slice().migProfile());
        return new Decision.Reconfigure(bestNode, bestGpu, packed(model, wanted), j.id());
    }

    /**
     * Whether some node that is not drained may re-partition a GPU for this MIG request (a DYNAMIC policy for its model
     * and profile). Without one, the request runs only on instances of the layouts as they are and never takes a whole GPU.
     */
    public static boolean mayPartitionFor(Occupancy o, SliceRequest r) {
        Cluster cluster = o.cluster();
        for (int n = 0; n < cluster.nodes().size(); n++) {
            if (!o.isDrained(n) && mayPartition(o.migPolicy(n), cluster.nodes().get(n).gpuModel(), r)) return true;
        }
        return false;
    }

    private static boolean mayPartition(MigPolicy policy, String model, SliceRequest r) {
        return policy != null && policy.layout() == MigPolicy.Layout.DYNAMIC && policy.partitionableModels().contains(model)
                && policy.allowedProfiles().contains(r.migProfile()) && r.accepts(model) && r.fitsModel(model, Long.MAX_VALUE);
    }

    /** A valid layout with as many of the profiles, in order, as fit: each at its first start that NVIDIA accepts. */
    static MigLayout packed(String model, List<String> profiles) {
        MigGeometry geometry = MigGeometry.of(model);
        List<MigLayout.Slot> slots = new ArrayList<>();
        for (String p : profiles) {
            for (int start : geometry.profile(p).starts()) {
                slots.add(new MigLayout.Slot(p, start));
                if (geometry.problems(slots).isEmpty()) break;
                slots.remove(slots.size() - 1);
            }
        }
        return new MigLayout(model, slots);
    }

    /** A request's size in milli-GPU for the fragmentation score: a MIG profile by its compute slices of 7. */
    static int milliOf(SliceRequest r) {
        if (!r.isMig()) return r.milli();
        return MigGeometry.computeSlicesByProfile().get(r.migProfile()) * WorkloadTask.MILLI / MigGeometry.COMPUTE_SLICES;
    }
}
