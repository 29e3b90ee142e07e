package dev.horizon.allocator;

import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.GpuState;
import dev.horizon.fractional.mig.MigPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which GPU of which node is busy right now. Placement rules shared by every policy and the simulator:
 * a batch job gets a contiguous block of GPU indices on one node, aligned to the next power of two
 * (buddy-style, so NVLink neighbours stay together and big blocks stay free); a job larger than a
 * node takes whole nodes plus one block for the remainder.
 *
 * <p>A GPU holds either whole-GPU work, or MIG instances of its layout, or time-slicing shares (their milli-GPU
 * summing to at most 1000 and their memory to at most the GPU's). A GPU that is partitioned, holds shares or is being
 * re-partitioned counts as busy for whole-GPU work, so the whole-GPU rules above run exactly as before.
 */
public final class Occupancy {
    private final Cluster cluster;
    private final long[] busy;
    /** Nodes being drained (unhealthy): no new work lands there; running work leaves in its own time. */
    private final boolean[] drained;
    /** By {@link #key}: the shares each GPU holds (immutable lists), its MIG layout, and GPUs being re-partitioned. */
    private final Map<Long, List<GpuShare>> held;
    private final Map<Long, MigLayout> layouts;
    /** GPU being re-partitioned -> the layout it is getting. */
    private final Map<Long, MigLayout> reconfiguring;
    /** Per node, its pool's MIG policy; null where no policy lets the planner change layouts. */
    private final MigPolicy[] migPolicies;

    public Occupancy(Cluster cluster) {
        this.cluster = cluster;
        this.busy = new long[cluster.nodes().size()];
        this.drained = new boolean[busy.length];
        this.held = new HashMap<>();
        this.layouts = new HashMap<>();
        this.reconfiguring = new HashMap<>();
        this.migPolicies = new MigPolicy[busy.length];
    }

    private Occupancy(Occupancy other) {
        this.cluster = other.cluster;
        this.busy = other.busy.clone();
        this.drained = other.drained.clone();
        this.held = new HashMap<>(other.held);
        this.layouts = new HashMap<>(other.layouts);
        this.reconfiguring = new HashMap<>(other.reconfiguring);
        this.migPolicies = other.migPolicies.clone();
    }

    private static long key(int node, int gpu) {
        return ((long) node << 8) | gpu;
    }

    /** The GPU's MIG layout as it is now; an empty layout turns MIG off. Only on a GPU that holds no work. */
    public void setMigLayout(int node, int gpu, MigLayout layout) {
        long k = key(node, gpu);
        if (!sharesOn(node, gpu).isEmpty() || (!layouts.containsKey(k) && (busy[node] & (1L << gpu)) != 0)) {
            throw new IllegalStateException("GPU " + gpu + " of " + cluster.nodes().get(node).name() + " holds work; its MIG layout cannot change");
        }
        String model = cluster.nodes().get(node).gpuModel();
        if (!layout.model().equals(model)) throw new IllegalArgumentException("layout for " + layout.model() + " on a " + model);
        if (layout.slots().isEmpty()) {
            layouts.remove(k);
            busy[node] &= ~(1L << gpu);
        } else {
            layouts.put(k, layout);
            busy[node] |= 1L << gpu;
        }
    }

    /** The GPU's MIG layout, or null when MIG is off. */
    public MigLayout migLayout(int node, int gpu) {
        return layouts.get(key(node, gpu));
    }

    public void setMigPolicy(int node, MigPolicy policy) {
        migPolicies[node] = policy;
    }

    public MigPolicy migPolicy(int node) {
        return migPolicies[node];
    }

    /** The GPU is being re-partitioned to target: it serves nothing, whole or shared, until the agent reports it. */
    public void markReconfiguring(int node, int gpu, MigLayout target) {
        if (!sharesOn(node, gpu).isEmpty()) throw new IllegalStateException("GPU " + gpu + " of node " + node + " still holds shares");
        reconfiguring.put(key(node, gpu), target);
        busy[node] |= 1L << gpu;
    }

    public boolean isReconfiguring(int node, int gpu) {
        return reconfiguring.containsKey(key(node, gpu));
    }

    /** The re-partitioning is done: the GPU has its target layout and serves slices of it (none when it is empty). */
    public void finishReconfiguring(int node, int gpu) {
        long k = key(node, gpu);
        if (!reconfiguring.containsKey(k)) throw new IllegalStateException("GPU " + gpu + " of node " + node + " is not re-partitioning");
        MigLayout target = reconfiguring.remove(k);
        busy[node] &= ~(1L << gpu);
        layouts.remove(k);
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
        return reconfiguring.get(key(node, gpu));
    }

    public List<GpuShare> sharesOn(int node, int gpu) {
        return held.getOrDefault(key(node, gpu), List.of());
    }

    /** Whether any GPU holds slices, is partitioned or is being re-partitioned. */
    public boolean hasFractional() {
        return !held.isEmpty() || !layouts.isEmpty() || !reconfiguring.isEmpty();
    }

    /** {node, gpu} of every GPU that holds slices, is partitioned or is being re-partitioned. */
    public List<int[]> fractionalGpus() {
        Set<Long> keys = new java.util.TreeSet<>(held.keySet());
        keys.addAll(layouts.keySet());
        keys.addAll(reconfiguring.keySet());
        List<int[]> out = new ArrayList<>();
        for (long k : keys) out.add(new int[] {(int) (k >> 8), (int) (k & 0xff)});
        return out;
    }

    /** Whether the GPU holds no whole-GPU work, no shares, no layout and is not being re-partitioned. */
    public boolean isWholeFree(int node, int gpu) {
        return (busy[node] & (1L << gpu)) == 0;
    }

    /** Whether a share could be added on that GPU now (MIG: the layout has that instance and nobody holds it). */
    public boolean canHold(int node, int gpu, GpuShare share) {
        if (drained[node] || gpu >= cluster.nodes().get(node).gpus() || isReconfiguring(node, gpu)) return false;
        List<GpuShare> on = sharesOn(node, gpu);
        MigLayout layout = migLayout(node, gpu);
        if (share.isMig()) {
            if (layout == null || !layout.slots().contains(new MigLayout.Slot(share.migProfile(), share.migStart()))) return false;
            return on.stream().noneMatch(h -> h.migStart() == share.migStart());
        }
        if (layout != null) return false;
        if (on.isEmpty()) return isWholeFree(node, gpu) && share.memoryMiB() <= cluster.nodes().get(node).gpuMemoryMiB();
        int milli = share.milli();
        long memory = share.memoryMiB();
        for (GpuShare h : on) {
            milli += h.milli();
            memory += h.memoryMiB();
        }
        return milli <= 1000 && memory <= cluster.nodes().get(node).gpuMemoryMiB();
    }

    /** Of 1000: what the GPU could still give fractional work now (whole-GPU work and re-partitioning leave 0). */
    public int freeMilli(int node, int gpu) {
        if (drained[node] || isReconfiguring(node, gpu)) return 0;
        MigLayout layout = migLayout(node, gpu);
        List<GpuShare> on = sharesOn(node, gpu);
        if (layout != null) {
            int slices = 0;
            for (MigLayout.Slot s : layout.slots()) {
                if (on.stream().noneMatch(h -> h.migStart() == s.start())) slices += dev.horizon.api.mig.MigGeometry.of(layout.model()).profile(s.profile()).computeSlices();
            }
            return slices * 1000 / dev.horizon.api.mig.MigGeometry.COMPUTE_SLICES;
        }
        if (!on.isEmpty()) return 1000 - on.stream().mapToInt(GpuShare::milli).sum();
        return isWholeFree(node, gpu) ? 1000 : 0;
    }

    private void hold(Placement.Slice s) {
        if (!canHold(s.node(), s.firstGpu(), s.share())) {
            throw new IllegalStateException("no room for " + s.share().describe() + " on GPU " + s.firstGpu() + " of " + cluster.nodes().get(s.node()).name());
        }
        long k = key(s.node(), s.firstGpu());
        List<GpuShare> on = new ArrayList<>(sharesOn(s.node(), s.firstGpu()));
        on.add(s.share());
        held.put(k, List.copyOf(on));
        busy[s.node()] |= 1L << s.firstGpu();
    }

    private void unhold(Placement.Slice s) {
        long k = key(s.node(), s.firstGpu());
        List<GpuShare> on = new ArrayList<>(sharesOn(s.node(), s.firstGpu()));
        if (!on.remove(s.share())) throw new IllegalStateException("share not held: " + s.share().describe() + " on GPU " + s.firstGpu() + " of node " + s.node());
        if (on.isEmpty()) {
            held.remove(k);
            if (!layouts.containsKey(k) && !reconfiguring.containsKey(k)) busy[s.node()] &= ~(1L << s.firstGpu());
        } else {
            held.put(k, List.copyOf(on));
        }
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

    public Cluster cluster() {
        return cluster;
    }

    /** GPUs of the node that new work may use: none on a drained node. */
    public int freeOn(int node) {
        return drained[node] ? 0 : cluster.nodes().get(node).gpus() - Long.bitCount(busy[node]);
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
            long mask = mask(s);
            if (s.firstGpu() + s.count() > cluster.nodes().get(s.node()).gpus() || (busy[s.node()] & mask) != 0) return false;
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

    /** Per node, the bit mask of GPUs busy for whole-GPU work (a copy). */
    long[] busyMasks() {
        return busy.clone();
    }

    /**
     * {@code count} single GPUs for inference replicas, or null if too few are free. Each one goes
     * where it breaks the fewest aligned blocks: on the fullest node, the GPU that leaves the largest
     * aligned free block intact (ties: the highest index, away from where jobs' blocks start).
     */
    public Placement findSingles(int count) {
        if (count > totalFree()) return null;
        long[] trial = busy.clone();
        List<Placement.Slice> slices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int bestNode = -1, bestGpu = -1, bestFree = Integer.MAX_VALUE, bestBlock = -1;
            for (int n = 0; n < trial.length; n++) {
                if (drained[n]) continue;
                int size = cluster.nodes().get(n).gpus();
                int free = size - Long.bitCount(trial[n]);
                if (free == 0 || free > bestFree) continue;
                for (int g = size - 1; g >= 0; g--) {
                    if ((trial[n] & (1L << g)) != 0) continue;
                    int block = largestAlignedFree(trial[n] | (1L << g), size);
                    if (free < bestFree || block > bestBlock) {
                        bestNode = n;
                        bestGpu = g;
                        bestFree = free;
                        bestBlock = block;
                    }
                }
            }
            trial[bestNode] |= 1L << bestGpu;
            slices.add(new Placement.Slice(bestNode, bestGpu, 1));
        }
        return new Placement(slices);
    }

    private static int largestAlignedFree(long mask, int size) {
        for (int block = Integer.highestOneBit(size); block >= 1; block >>= 1) {
            for (int o = 0; o + block <= size; o += block) {
                if ((mask & mask(o, block)) == 0) return block;
            }
        }
        return 0;
    }

    private static long mask(Placement.Slice s) {
        return mask(s.firstGpu(), s.count());
    }

    private static long mask(int first, int count) {
        long m = count >= 64 ? -1L : (1L << count) - 1;
        return m << first;
    }
}
