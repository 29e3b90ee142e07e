package dev.horizon.allocator.model;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The GPUs a job holds: contiguous index ranges on nodes. */
public record Placement(List<Slice> slices) {
    /**
     * GPUs [firstGpu, firstGpu + count) of node index {@code node}; with a share, a slice of the one GPU firstGpu
     * (count 1): a MIG instance or a time-slicing share.
     */
    public record Slice(int node, int firstGpu, int count, GpuShare share) {
        public Slice {
            if (share != null && count != 1) throw new IllegalArgumentException("a share is a slice of one GPU; got count " + count);
        }

        public Slice(int node, int firstGpu, int count) {
            this(node, firstGpu, count, null);
        }
    }

    public Placement {
        slices = List.copyOf(slices);
    }

    /**
     * Of a service's replicas, oldest first, the newest one on a node marked in nodes: the one a shrinking service lets
     * go first (null nodes or none there: -1).
     */
    public static int newestOn(List<Placement> replicas, boolean[] nodes) {
        if (nodes == null) return -1;
        for (int i = replicas.size() - 1; i >= 0; i--) {
            for (Slice s : replicas.get(i).slices()) if (nodes[s.node()]) return i;
        }
        return -1;
    }

    /** How many GPUs this placement holds, a share counting as one. */
    public int gpuCount() {
        // plain loops here and in shared(): planners ask both of every placement they try, and streams allocated
        int gpus = 0;
        for (int i = 0; i < slices.size(); i++) gpus += slices.get(i).count();
        return gpus;
    }

    /** Every GPU this placement holds, slice by slice (a share names the GPU it is a slice of). */
    public List<GpuRef> gpus() {
        List<GpuRef> gpus = new ArrayList<>();
        for (Slice s : slices) for (int g = s.firstGpu(); g < s.firstGpu() + s.count(); g++) gpus.add(new GpuRef(s.node(), g));
        return gpus;
    }

    /** GPUs this placement holds, a share counted by its fraction of its GPU. */
    public double gpuFraction() {
        double sum = 0;
        for (Slice s : slices) sum += s.share() == null ? s.count() : s.share().gpuFraction();
        return sum;
    }

    /** Whether the two hold a GPU in common (two shares of one GPU count: taking one back frees no GPU for the other). */
    public boolean overlaps(Placement other) {
        return overlaps(other, true);
    }

    /** Whether the two hold a whole GPU in common: shares of one GPU stand side by side, so they never clash. */
    public boolean overlapsWhole(Placement other) {
        return overlaps(other, false);
    }

    private boolean overlaps(Placement other, boolean sharesCount) {
        for (Slice a : slices) {
            for (Slice b : other.slices) {
                boolean counted = sharesCount || (a.share() == null && b.share() == null);
                if (counted && a.node() == b.node() && a.firstGpu() < b.firstGpu() + b.count() && b.firstGpu() < a.firstGpu() + a.count()) return true;
            }
        }
        return false;
    }

    public boolean shared() {
        for (int i = 0; i < slices.size(); i++) if (slices.get(i).share() != null) return true;
        return false;
    }

    /** "node-1[0-3]+node-2[0-7]", the form schedule.csv uses; a share adds its slice: "node-1[2-2:3g.40gb@4]". */
    public String describe(Cluster cluster) {
        return slices.stream()
                .map(s -> cluster.nodes().get(s.node()).name() + "[" + s.firstGpu() + "-" + (s.firstGpu() + s.count() - 1)
                        + (s.share() == null ? "" : ":" + s.share().describe()) + "]")
                .collect(Collectors.joining("+"));
    }
}
