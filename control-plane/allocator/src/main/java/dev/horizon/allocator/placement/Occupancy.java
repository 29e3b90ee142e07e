package dev.horizon.allocator.placement;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.GpuState;
import dev.horizon.fractional.mig.MigPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which GPU of which node is busy right now, and which nodes are drained. Shared by every policy and the simulator.
 * Where a job may go is {@link BlockSearch}'s rule ({@link #findBlock(int, PlacementRules, NodeOrder)}); what partitioned
 * and shared GPUs hold is {@link SharedGpus}'.
 *
 * <p>A GPU holds either whole-GPU work, or MIG instances of its layout, or time-slicing shares (their milli-GPU
 * summing to at most 1000 and their memory to at most the GPU's). A GPU that is partitioned, holds shares or is being
 * re-partitioned counts as busy for whole-GPU work, so the whole-GPU rules run exactly as they do without slices.
 */
public final class Occupancy {
    private final Cluster cluster;
    /** Per node, the bit mask of GPUs busy for whole-GPU work. */
    private final long[] busy;
    /** Nodes being drained (unhealthy): no new work lands there; running work leaves in its own time. */
    private final boolean[] drained;
    private final SharedGpus shared;
    /** Per node, its pool's MIG policy; null where no policy lets the planner change layouts. */
    private final MigPolicy[] migPolicies;
    /** Per node: one sharing config covers all its whole GPUs (the NVIDIA device plugin's, in device-plugin mode). */
    private final boolean[] sharingPerNode;
    /** Per node shared per node: the time-slicing replicas its config has now (0: not time-sliced). */
    private final int[] configuredReplicas;
    /**
     * Facts of the cluster every search reads, worked out once per cluster and shared by copies: each node's GPU model,
     * and per set of accepted models the nodes of those models and the largest of them (a search per job used to walk
     * every node's model for each).
     */
    private final String[] models;
    private final Map<Set<String>, Accepted> accepted;

    /** The nodes of the models a job accepts, and the most GPUs one of them has (0: none). */
    private record Accepted(boolean[] nodes, int largest) {
    }

    public Occupancy(Cluster cluster) {
        this.cluster = cluster;
        this.models = ModelGroups.models(cluster);
        this.accepted = new ConcurrentHashMap<>();
        this.busy = new long[cluster.nodes().size()];
        this.drained = new boolean[busy.length];
        this.shared = new SharedGpus();
        this.migPolicies = new MigPolicy[busy.length];
        this.sharingPerNode = new boolean[busy.length];
        this.configuredReplicas = new int[busy.length];
    }

    private Occupancy(Occupancy other) {
        this.cluster = other.cluster;
        this.models = other.models;
        this.accepted = other.accepted;
        this.busy = other.busy.clone();
        this.drained = other.drained.clone();
        this.shared = other.shared.copy();
        this.migPolicies = other.migPolicies.clone();
        this.sharingPerNode = other.sharingPerNode.clone();
        this.configuredReplicas = other.configuredReplicas.clone();
    }

    /** The GPU's MIG layout as it is now; an empty layout turns MIG off. Only on a GPU that holds no work. */
    public void setMigLayout(int node, int gpu, MigLayout layout) {
        if (!sharesOn(node, gpu).isEmpty() || (!shared.hasLayout(node, gpu) && !isWholeFree(node, gpu))) {
            throw new IllegalStateException("GPU " + gpu + " of " + cluster.nodes().get(node).name() + " holds work; its MIG layout cannot change");
        }
        String model = cluster.nodes().get(node).gpuModel();
        if (!layout.model().equals(model)) throw new IllegalArgumentException("layout for " + layout.model() + " on a " + model);
        if (shared.setLayout(node, gpu, layout)) busy[node] |= 1L << gpu;
        else busy[node] &= ~(1L << gpu);
    }

    /** The GPU's MIG layout, or null when MIG is off. */
    public MigLayout migLayout(int node, int gpu) {
        return shared.layout(node, gpu);
    }

    public void setMigPolicy(int node, MigPolicy policy) {
        migPolicies[node] = policy;
    }

    public MigPolicy migPolicy(int node) {
        return migPolicies[node];
    }

    /**
     * The node's whole GPUs are shared by one config for all of them (Kubernetes' device-plugin mode: the NVIDIA device
     * plugin time-slices every nvidia.com/gpu of a node alike). There every time-slicing share has one replica count, and
     * the node holds whole-GPU work or time-slicing shares, never both: a time-sliced node hands out slices, not GPUs.
     */
    public void setSharingPerNode(int node, int replicasNow) {
        sharingPerNode[node] = true;
        configuredReplicas[node] = replicasNow;
    }

    public boolean sharingPerNode(int node) {
        return sharingPerNode[node];
    }

    /**
     * Whether the node's whole GPUs are time-sliced: a node shared per node that holds a time-slicing share, or whose
     * config still time-slices (its last share ended, the config that ends the sharing is not applied yet).
     */
    public boolean timeSliced(int node) {
        return sharingPerNode[node] && (configuredReplicas[node] > 0 || anyTimeSlice(node));
    }

    /** The GPU is being re-partitioned to target: it serves nothing, whole or shared, until the agent reports it. */
    public void markReconfiguring(int node, int gpu, MigLayout target) {
        if (!sharesOn(node, gpu).isEmpty()) throw new IllegalStateException("GPU " + gpu + " of node " + node + " still holds shares");
        shared.startReconfiguring(node, gpu, target);
        busy[node] |= 1L << gpu;
    }

    public boolean isReconfiguring(int node, int gpu) {
        return shared.isReconfiguring(node, gpu);
    }

    /** The re-partitioning is done: the GPU has its target layout and serves slices of it (none when it is empty). */
    public void finishReconfiguring(int node, int gpu) {
        if (!isReconfiguring(node, gpu)) throw new IllegalStateException("GPU " + gpu + " of node " + node + " is not re-partitioning");
        MigLayout target = shared.finishReconfiguring(node, gpu);
        busy[node] &= ~(1L << gpu);
        if (target != null) setMigLayout(node, gpu, target);
    }

    /** The GPU as the ReconfigurationPlanner sees it: its layout, the tasks on it (whole-GPU work counts one), re-partitioning. */
    public GpuState migState(int node, int gpu, String id) {
        String model = cluster.nodes().get(node).gpuModel();
        MigLayout layout = migLayout(node, gpu);
        int running = sharesOn(node, gpu).size();
        boolean changing = isReconfiguring(node, gpu);
        // a busy GPU with no layout, no shares and no re-partitioning holds whole-GPU work
        if (running == 0 && layout == null && !changing && !isWholeFree(node, gpu)) running = 1;
        return new GpuState(id, model, layout == null ? MigLayout.unpartitioned(model) : layout, running, changing);
    }

    /** The layout a re-partitioning GPU is getting, or null. */
    public MigLayout reconfiguringTo(int node, int gpu) {
        return shared.reconfiguringTo(node, gpu);
    }

    public List<GpuShare> sharesOn(int node, int gpu) {
        return shared.sharesOn(node, gpu);
    }

    /** Whether any GPU holds slices, is partitioned or is being re-partitioned. */
    public boolean hasFractional() {
        return shared.any();
    }

    /** Every GPU that holds slices, is partitioned or is being re-partitioned, in order. */
    public List<GpuRef> fractionalGpus() {
        return shared.gpus();
    }

    /** Whether the GPU holds no whole-GPU work, no shares, no layout and is not being re-partitioned. */
    public boolean isWholeFree(int node, int gpu) {
        return (busy[node] & (1L << gpu)) == 0;
    }

    /** Whether a share could be added on that GPU now (MIG: the layout has that instance and nobody holds it). */
    public boolean canHold(int node, int gpu, GpuShare share) {
        if (drained[node] || gpu >= cluster.nodes().get(node).gpus() || isReconfiguring(node, gpu)) return false;
        if (!share.isMig() && sharingPerNode[node] && !fitsNodeSharing(node, share)) return false;
        return shared.fits(node, gpu, share, isWholeFree(node, gpu), cluster.nodes().get(node).gpuMemoryMiB());
    }

    /**
     * On a node shared per node: the share has the replica count of the node's other shares (the one count its config
     * will have; with none running, any count, and the config follows), and no whole-GPU work runs there.
     */
    private boolean fitsNodeSharing(int node, GpuShare share) {
        int gpus = cluster.nodes().get(node).gpus();
        for (int g = 0; g < gpus; g++) {
            for (GpuShare on : sharesOn(node, g)) {
                if (!on.isMig() && on.timeSlicingReplicas() != share.timeSlicingReplicas()) return false;
            }
            boolean wholeWork = (busy[node] & (1L << g)) != 0 && sharesOn(node, g).isEmpty() && migLayout(node, g) == null && !isReconfiguring(node, g);
            if (wholeWork) return false;
        }
        return true;
    }

    private boolean anyTimeSlice(int node) {
        for (int g = 0; g < cluster.nodes().get(node).gpus(); g++) {
            if (sharesOn(node, g).stream().anyMatch(s -> !s.isMig())) return true;
        }
        return false;
    }

    /** Of 1000: what the GPU could still give fractional work now (whole-GPU work and re-partitioning leave 0). */
    public int freeMilli(int node, int gpu) {
        if (drained[node] || isReconfiguring(node, gpu)) return 0;
        int slices = shared.freeMilli(node, gpu);
        if (slices >= 0) return slices;
        return isWholeFree(node, gpu) ? 1000 : 0;
    }

    private void hold(Placement.Slice s) {
        if (!canHold(s.node(), s.firstGpu(), s.share())) {
            throw new IllegalStateException("no room for " + s.share().describe() + " on GPU " + s.firstGpu() + " of " + cluster.nodes().get(s.node()).name());
        }
        shared.add(s.node(), s.firstGpu(), s.share());
        busy[s.node()] |= 1L << s.firstGpu();
    }

    private void unhold(Placement.Slice s) {
        Boolean clear = shared.remove(s.node(), s.firstGpu(), s.share());
        if (clear == null) throw new IllegalStateException("share not held: " + s.share().describe() + " on GPU " + s.firstGpu() + " of node " + s.node());
        if (clear) busy[s.node()] &= ~(1L << s.firstGpu());
    }

    public void drain(int node) {
        drained[node] = true;
    }

    public boolean isDrained(int node) {
        return drained[node];
    }

    public Occupancy copy() {
        return new Occupancy(this);
    }

    /** Each node's GPU model, by node index (read only). */
    String[] models() {
        return models;
    }

    /** Per node, whether it is of a model the rules accept (read only). */
    boolean[] acceptedNodes(PlacementRules rules) {
        return accepted(rules).nodes();
    }

    /** The largest node of a model the rules accept, drained or not (0: none): a job wider than it needs several nodes. */
    int largestAccepted(PlacementRules rules) {
        return accepted(rules).largest();
    }

    private Accepted accepted(PlacementRules rules) {
        // read first: computeIfAbsent's capturing lambda was made on every search, though it is worked out once per set
        Accepted known = accepted.get(rules.gpuTypes());
        if (known != null) return known;
        return accepted.computeIfAbsent(rules.gpuTypes(), types -> {
            boolean[] nodes = new boolean[models.length];
            int largest = 0;
            for (int n = 0; n < nodes.length; n++) {
                nodes[n] = rules.accepts(models[n]);
                if (nodes[n]) largest = Math.max(largest, cluster.nodes().get(n).gpus());
            }
            return new Accepted(nodes, largest);
        });
    }

    public Cluster cluster() {
        return cluster;
    }

    /** GPUs of the node that new whole-GPU work may use: none on a drained node, none on a time-sliced one. */
    public int freeOn(int node) {
        return drained[node] || timeSliced(node) ? 0 : cluster.nodes().get(node).gpus() - Long.bitCount(busy[node]);
    }

    public int totalFree() {
        int free = 0;
        for (int n = 0; n < busy.length; n++) free += freeOn(n);
        return free;
    }

    public boolean isFree(Placement p) {
        if (p.shared()) {
            Occupancy trial = copy();
            for (Placement.Slice s : p.slices()) {
                if (s.share() == null ? !trial.isFree(new Placement(List.of(s))) : !trial.canHold(s.node(), s.firstGpu(), s.share())) return false;
                if (s.share() == null) trial.busy[s.node()] |= mask(s);
                else trial.hold(s);
            }
            return true;
        }
        for (Placement.Slice s : p.slices()) {
            if (s.firstGpu() + s.count() > cluster.nodes().get(s.node()).gpus() || (busy[s.node()] & mask(s)) != 0) return false;
        }
        return true;
    }

    public void occupy(Placement p) {
        if (!isFree(p)) throw new IllegalStateException("GPUs already busy: " + p.describe(cluster));
        for (Placement.Slice s : p.slices()) {
            if (s.share() != null) hold(s);
            else busy[s.node()] |= mask(s);
        }
    }

    public void release(Placement p) {
        for (Placement.Slice s : p.slices()) {
            if (s.share() != null) {
                unhold(s);
                continue;
            }
            long mask = mask(s);
            if ((busy[s.node()] & mask) != mask) throw new IllegalStateException("GPUs not busy: " + p.describe(cluster));
            busy[s.node()] &= ~mask;
        }
    }

    /**
     * Releases p as {@link #release} does, and notes in undo what it changed, so that {@link #undo} puts it back exactly:
     * a preemption search tries victims node by node on the occupancy itself, where a copy of the whole cluster per node
     * tried was three quarters of what a future of the bands allocated at 10,240 GPUs (some 60 GB), and futures played
     * at once then contended for memory.
     */
    public void release(Placement p, Undo undo) {
        for (Placement.Slice s : p.slices()) {
            undo.busy.add(new SavedNode(s.node(), busy[s.node()]));
            if (s.share() != null) undo.shares.add(new SavedShares(s.node(), s.firstGpu(), shared.sharesOn(s.node(), s.firstGpu())));
        }
        release(p);
    }

    /** Puts back what the releases noted in undo changed, as it was before the first of them; undo is then empty. */
    public void undo(Undo undo) {
        for (int i = undo.shares.size() - 1; i >= 0; i--) {
            SavedShares saved = undo.shares.get(i);
            shared.restore(saved.node(), saved.gpu(), saved.shares());
        }
        for (int i = undo.busy.size() - 1; i >= 0; i--) busy[undo.busy.get(i).node()] = undo.busy.get(i).mask();
        undo.shares.clear();
        undo.busy.clear();
    }

    /** What releases changed since the last {@link #undo}: each node's busy mask and each GPU's shares as they were. */
    public static final class Undo {
        private final List<SavedNode> busy = new ArrayList<>();
        private final List<SavedShares> shares = new ArrayList<>();
    }

    private record SavedNode(int node, long mask) {
    }

    private record SavedShares(int node, int gpu, List<GpuShare> shares) {
    }

    /** A block for a job of {@code gpus} GPUs under today's rules, or null when none is free. Does not occupy it. */
    public Placement findBlock(int gpus) {
        return findBlock(gpus, PlacementRules.ANY, NodeOrder.BEST_FIT);
    }

    /** Like {@link #findBlock(int)} but only on nodes whose flag is set (null: any node). */
    public Placement findBlock(int gpus, boolean[] allowedNodes) {
        return findBlock(gpus, PlacementRules.ANY, NodeOrder.BEST_FIT, allowedNodes);
    }

    /**
     * GPUs for a job of {@code gpus} that its rules allow (GPU model, replica width, topology), never on a drained node,
     * or null when none are free now. Does not occupy them. The one place whole-GPU placement rules are checked.
     */
    public Placement findBlock(int gpus, PlacementRules rules, NodeOrder order) {
        return findBlock(gpus, rules, order, null);
    }

    /** Like {@link #findBlock(int, PlacementRules, NodeOrder)} but only on nodes whose flag is set (null: any node). */
    public Placement findBlock(int gpus, PlacementRules rules, NodeOrder order, boolean[] allowedNodes) {
        return new BlockSearch(this).find(gpus, rules, order, allowedNodes);
    }

    /** What {@link #findBlock(int, PlacementRules, NodeOrder, boolean[])} finds with only this node allowed, without walking the others. */
    public Placement findBlockOn(int node, int gpus, PlacementRules rules, NodeOrder order) {
        return new BlockSearch(this, node, node + 1).find(gpus, rules, order, null);
    }

    /** Whether one node of a model the job accepts is big enough for {@code gpus} (else it spans nodes, or cannot run). */
    public boolean fitsOneNode(int gpus, PlacementRules rules) {
        // the largest accepted node is worked out once per set of models: a hold looks for wide work among every waiting job
        return largestAccepted(rules) >= gpus;
    }

    /**
     * {@code count} single GPUs for inference replicas, or null if too few are free; see {@link BlockSearch#singles}.
     */
    public Placement findSingles(int count) {
        return findSingles(count, null);
    }

    /** As {@link #findSingles(int)}, on nodes not marked in heldForWideJob first (null: none is). */
    public Placement findSingles(int count, boolean[] heldForWideJob) {
        return count > totalFree() ? null : new BlockSearch(this).singles(count, heldForWideJob);
    }

    /** Per node, the bit mask of GPUs busy for whole-GPU work (a copy). */
    long[] busyMasks() {
        return busy.clone();
    }

    /** Per node, the bit mask of GPUs busy for whole-GPU work (read only: a search reads it, never keeps it). */
    long[] busyNow() {
        return busy;
    }

    private static long mask(Placement.Slice s) {
        return BlockSearch.mask(s.firstGpu(), s.count());
    }
}
