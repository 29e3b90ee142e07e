package dev.horizon.allocator.placement;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place whole-GPU placement rules are checked: which nodes may hold a job (its GPU models, not drained, the
 * caller's node set), how its GPUs split over nodes (a block on one node; whole nodes plus one block for a job without a
 * replica width; whole replicas per node for one with), and its topology (one node, one NVLink domain).
 *
 * <p>Blocks are contiguous GPU indices aligned to the next power of two (buddy-style, so NVLink neighbours stay together
 * and big blocks stay free). Reads the occupancy, never changes it.
 */
final class BlockSearch {
    private final Occupancy o;
    private final Cluster cluster;
    /** The nodes [from, to) a search reads: a search on one node need not walk a thousand it may not use. */
    private final int from, to;

    BlockSearch(Occupancy o) {
        this(o, 0, o.cluster().nodes().size());
    }

    /** A search that may use only the nodes [from, to), whatever else it is allowed. */
    BlockSearch(Occupancy o, int from, int to) {
        this.o = o;
        this.cluster = o.cluster();
        this.from = from;
        this.to = to;
    }

    Placement find(int gpus, PlacementRules rules, NodeOrder order, boolean[] allowed) {
        if (gpus < 1) return null;
        boolean[] eligible = eligible(rules, allowed);
        return ModelGroups.place(o.models(), eligible, eligible.length, rules.mixModels(), ok -> find(gpus, rules, order, ok, o.busyNow()),
                ModelGroups::nodesOf);
    }

    private Placement find(int gpus, PlacementRules rules, NodeOrder order, boolean[] ok, long[] busyNow) {
        return switch (rules.topology()) {
            case SAME_NODE -> singleNode(gpus, ok, order, busyNow);
            case SAME_NVLINK_DOMAIN -> inOneDomain(gpus, rules, order, ok);
            case ANY -> within(gpus, rules, order, ok);
        };
    }

    /** Nodes that may hold the job: in the caller's set, of a model it accepts, not drained, not time-sliced per node. */
    private boolean[] eligible(PlacementRules rules, boolean[] allowed) {
        // indexed by node up to the last one read, no further: a search of one node made one the size of the cluster
        boolean[] ok = new boolean[to];
        boolean[] accepted = o.acceptedNodes(rules);
        for (int n = from; n < to; n++) {
            ok[n] = (allowed == null || allowed[n]) && !o.isDrained(n) && !o.timeSliced(n) && accepted[n];
        }
        return ok;
    }

    /** The job's GPUs on the nodes of one NVLink domain: the fullest domain that fits (best fit), or the emptiest. */
    private Placement inOneDomain(int gpus, PlacementRules rules, NodeOrder order, boolean[] ok) {
        Map<String, boolean[]> domains = new LinkedHashMap<>();
        for (int n = from; n < to; n++) {
            if (ok[n]) domains.computeIfAbsent(cluster.domainOf(n), k -> new boolean[ok.length])[n] = true;
        }
        Placement best = null;
        int bestFree = -1;
        for (boolean[] members : domains.values()) {
            int free = 0;
            for (int n = from; n < to; n++) if (members[n]) free += o.freeOn(n);
            if (free < gpus) continue;
            boolean better = best == null || (order == NodeOrder.BEST_FIT ? free < bestFree : free > bestFree);
            if (!better) continue;
            Placement p = within(gpus, rules, order, members);
            if (p != null) {
                best = p;
                bestFree = free;
            }
        }
        return best;
    }

    /** The job on the allowed nodes, any topology. */
    private Placement within(int gpus, PlacementRules rules, NodeOrder order, boolean[] ok) {
        long[] busy = o.busyNow();
        // pods spread one by one, as kube-scheduler places them
        if (rules.perReplica() && order == NodeOrder.LEAST_ALLOCATED) return byReplica(gpus, rules.gpusPerReplica(), ok, order, busy);
        if (gpus <= o.largestAccepted(rules)) {
            Placement one = singleNode(gpus, ok, order, busy);
            if (one != null || !rules.perReplica()) return one;
            return byReplica(gpus, rules.gpusPerReplica(), ok, order, busy);
        }
        if (rules.perReplica()) return byReplica(gpus, rules.gpusPerReplica(), ok, order, busy);
        return wholeNodesPlusBlock(gpus, rules, ok, order, busy);
    }

    /** A job without a replica width wider than a node: whole free nodes, in index order, plus one block for the rest. */
    private Placement wholeNodesPlusBlock(int gpus, PlacementRules rules, boolean[] ok, NodeOrder order, long[] busy) {
        List<Placement.Slice> slices = new ArrayList<>();
        boolean[] rest = ok.clone();
        int left = gpus;
        for (int n = from; n < to && left > 0; n++) {
            int size = cluster.nodes().get(n).gpus();
            if (ok[n] && busy[n] == 0 && size <= left) {
                slices.add(new Placement.Slice(n, 0, size));
                rest[n] = false;
                left -= size;
            }
        }
        if (left > 0) {
            if (left > o.largestAccepted(rules)) return null;
            Placement remainder = singleNode(left, rest, order, busy);
            if (remainder == null) return null;
            slices.addAll(remainder.slices());
        }
        return new Placement(slices);
    }

    /**
     * Whole replicas of {@code perReplica} GPUs, each on one node. Best fit: whole free nodes first (as many replicas
     * as each holds), then the rest in one block on one node if one has room, else replica by replica on the fullest
     * node that fits. Least allocated: replica by replica on the emptiest node, as kube-scheduler spreads pods.
     */
    private Placement byReplica(int gpus, int perReplica, boolean[] ok, NodeOrder order, long[] busy) {
        if (gpus % perReplica != 0) return null;
        long[] trial = busy.clone();
        List<Placement.Slice> slices = new ArrayList<>();
        int left = gpus;
        if (order == NodeOrder.BEST_FIT) {
            for (int n = from; n < to && left > 0; n++) {
                int holds = cluster.nodes().get(n).gpus() / perReplica * perReplica;
                if (!ok[n] || trial[n] != 0 || holds == 0 || holds > left) continue;
                take(trial, slices, new Placement.Slice(n, 0, holds));
                left -= holds;
            }
            Placement rest = left == 0 ? null : singleNode(left, ok, order, trial);
            if (rest != null) {
                take(trial, slices, rest.slices().get(0));
                left = 0;
            }
        }
        for (; left > 0; left -= perReplica) {
            Placement one = singleNode(perReplica, ok, order, trial);
            if (one == null) return null;
            take(trial, slices, one.slices().get(0));
        }
        return new Placement(merged(slices));
    }

    private static void take(long[] trial, List<Placement.Slice> slices, Placement.Slice s) {
        trial[s.node()] |= mask(s.firstGpu(), s.count());
        slices.add(s);
    }

    /** Adjacent slices on one node as one, so a job's GPUs on a node read as one range where they are contiguous. */
    private static List<Placement.Slice> merged(List<Placement.Slice> slices) {
        List<Placement.Slice> sorted = new ArrayList<>(slices);
        sorted.sort(java.util.Comparator.comparingInt(Placement.Slice::node).thenComparingInt(Placement.Slice::firstGpu));
        List<Placement.Slice> out = new ArrayList<>();
        for (Placement.Slice s : sorted) {
            Placement.Slice last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && last.node() == s.node() && last.firstGpu() + last.count() == s.firstGpu()) {
                out.set(out.size() - 1, new Placement.Slice(s.node(), last.firstGpu(), last.count() + s.count()));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** One block of {@code gpus} on one allowed node: the fullest that fits (best fit) or the emptiest by free fraction. */
    private Placement singleNode(int gpus, boolean[] ok, NodeOrder order, long[] busy) {
        Placement.Slice best = null;
        int bestFree = Integer.MAX_VALUE, bestSize = 1;
        for (int n = from; n < to; n++) {
            if (!ok[n]) continue;
            int size = cluster.nodes().get(n).gpus();
            int free = size - Long.bitCount(busy[n]);
            if (free < gpus) continue;
            if (best != null) {
                // best fit keeps emptier nodes for bigger jobs; least allocated compares free fractions, first node on ties
                boolean better = order == NodeOrder.BEST_FIT ? free < bestFree : (long) free * bestSize > (long) bestFree * size;
                if (!better) continue;
            }
            int offset = blockOffset(busy[n], size, gpus);
            if (offset >= 0) {
                best = new Placement.Slice(n, offset, gpus);
                bestFree = free;
                bestSize = size;
            }
        }
        return best == null ? null : new Placement(List.of(best));
    }

    /**
     * {@code count} single GPUs for inference replicas (the caller checked that enough are free). Each one goes where it
     * breaks the fewest aligned blocks: on the fullest node, the GPU that leaves the largest aligned free block intact
     * (ties: the highest index, away from where jobs' blocks start); on a node held for a wide job (avoid; null: none)
     * only where no other node has a free GPU.
     */
    Placement singles(int count, boolean[] avoid) {
        long[] trial = o.busyMasks();
        List<Placement.Slice> slices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int bestNode = -1, bestGpu = -1, bestFree = Integer.MAX_VALUE, bestBlock = -1;
            boolean[] skipped = avoid != null && freeElsewhere(trial, avoid) ? avoid : null;
            for (int n = 0; n < trial.length; n++) {
                if (o.isDrained(n) || o.timeSliced(n) || (skipped != null && skipped[n])) continue;
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

    /** Whether a node not marked in avoid that takes work has a free GPU in trial. */
    private boolean freeElsewhere(long[] trial, boolean[] avoid) {
        for (int n = 0; n < trial.length; n++) {
            if (!avoid[n] && !o.isDrained(n) && !o.timeSliced(n) && Long.bitCount(trial[n]) < cluster.nodes().get(n).gpus()) return true;
        }
        return false;
    }

    private static int largestAlignedFree(long mask, int size) {
        for (int block = Integer.highestOneBit(size); block >= 1; block >>= 1) {
            for (int off = 0; off + block <= size; off += block) {
                if ((mask & mask(off, block)) == 0) return block;
            }
        }
        return 0;
    }

    /** First free aligned block of {@code gpus} in a node's mask, else the first free contiguous run, else -1. */
    static int blockOffset(long busy, int size, int gpus) {
        int align = Integer.highestOneBit(gpus) == gpus ? gpus : Integer.highestOneBit(gpus) << 1;
        if (align <= size) {
            for (int off = 0; off + gpus <= size; off += align) {
                if ((busy & mask(off, gpus)) == 0) return off;
            }
        }
        for (int off = 0; off + gpus <= size; off++) {
            if ((busy & mask(off, gpus)) == 0) return off;
        }
        return -1;
    }

    static long mask(int first, int count) {
        long m = count >= 64 ? -1L : (1L << count) - 1;
        return m << first;
    }
}
