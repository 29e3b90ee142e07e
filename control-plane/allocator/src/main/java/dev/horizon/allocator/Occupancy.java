package dev.horizon.allocator;

import java.util.ArrayList;
import java.util.List;

/**
 * Which GPU of which node is busy right now. Placement rules shared by every policy and the simulator:
 * a batch job gets a contiguous block of GPU indices on one node, aligned to the next power of two
 * (buddy-style, so NVLink neighbours stay together and big blocks stay free); a job larger than a
 * node takes whole nodes plus one block for the remainder.
 */
public final class Occupancy {
    private final Cluster cluster;
    private final long[] busy;
    /** Nodes being drained (unhealthy): no new work lands there; running work leaves in its own time. */
    private final boolean[] drained;

    public Occupancy(Cluster cluster) {
        this.cluster = cluster;
        this.busy = new long[cluster.nodes().size()];
        this.drained = new boolean[busy.length];
    }

    private Occupancy(Occupancy other) {
        this.cluster = other.cluster;
        this.busy = other.busy.clone();
        this.drained = other.drained.clone();
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
        for (Placement.Slice s : p.slices()) {
            long mask = mask(s);
            if (s.firstGpu() + s.count() > cluster.nodes().get(s.node()).gpus() || (busy[s.node()] & mask) != 0) return false;
        }
        return true;
    }

    public void occupy(Placement p) {
        if (!isFree(p)) throw new IllegalStateException("GPUs already busy: " + p.describe(cluster));
        for (Placement.Slice s : p.slices()) busy[s.node()] |= mask(s);
    }

    public void release(Placement p) {
        for (Placement.Slice s : p.slices()) {
            long mask = mask(s);
            if ((busy[s.node()] & mask) != mask) throw new IllegalStateException("GPUs not busy: " + p.describe(cluster));
            busy[s.node()] &= ~mask;
        }
    }

    /** A block for a job of {@code gpus} GPUs, or null when none is free. Does not occupy it. */
    public Placement findBlock(int gpus) {
        return findBlock(gpus, null);
    }

    /** Like {@link #findBlock(int)} but only on nodes whose flag is set (null: any node). */
    public Placement findBlock(int gpus, boolean[] allowedNodes) {
        int largest = cluster.largestNode();
        if (gpus <= largest) {
            Placement.Slice best = null;
            int bestFree = Integer.MAX_VALUE;
            for (int n = 0; n < busy.length; n++) {
                if ((allowedNodes != null && !allowedNodes[n]) || drained[n]) continue;
                int free = freeOn(n);
                if (free < gpus || free >= bestFree) continue; // best fit keeps emptier nodes for bigger jobs
                int offset = blockOffset(n, gpus);
                if (offset >= 0) {
                    best = new Placement.Slice(n, offset, gpus);
                    bestFree = free;
                }
            }
            return best == null ? null : new Placement(List.of(best));
        }
        List<Placement.Slice> slices = new ArrayList<>();
        int left = gpus;
        for (int n = 0; n < busy.length && left > 0; n++) {
            if (allowedNodes != null && !allowedNodes[n]) continue;
            int size = cluster.nodes().get(n).gpus();
            if (busy[n] == 0 && !drained[n] && size <= left) {
                slices.add(new Placement.Slice(n, 0, size));
                left -= size;
            }
        }
        if (left > 0) {
            boolean[] rest = new boolean[busy.length];
            for (int n = 0; n < busy.length; n++) {
                final int node = n;
                rest[n] = (allowedNodes == null || allowedNodes[n]) && slices.stream().noneMatch(s -> s.node() == node);
            }
            if (left > largest) return null;
            Placement remainder = findBlock(left, rest);
            if (remainder == null) return null;
            slices.addAll(remainder.slices());
        }
        return new Placement(slices);
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

    /** First free aligned block of {@code gpus} on node n, else the first free contiguous run, else -1. */
    private int blockOffset(int n, int gpus) {
        int size = cluster.nodes().get(n).gpus();
        int align = Integer.highestOneBit(gpus) == gpus ? gpus : Integer.highestOneBit(gpus) << 1;
        if (align <= size) {
            for (int o = 0; o + gpus <= size; o += align) {
                if ((busy[n] & mask(o, gpus)) == 0) return o;
            }
        }
        for (int o = 0; o + gpus <= size; o++) {
            if ((busy[n] & mask(o, gpus)) == 0) return o;
        }
        return -1;
    }

    private static long mask(Placement.Slice s) {
        return mask(s.firstGpu(), s.count());
    }

    private static long mask(int first, int count) {
        long m = count >= 64 ? -1L : (1L << count) - 1;
        return m << first;
    }
}
