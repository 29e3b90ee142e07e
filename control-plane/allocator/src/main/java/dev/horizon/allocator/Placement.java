package dev.horizon.allocator;

import java.util.List;
import java.util.stream.Collectors;

/** The GPUs a job holds: contiguous index ranges on nodes. */
public record Placement(List<Slice> slices) {
    /** GPUs [firstGpu, firstGpu + count) of node index {@code node}. */
    public record Slice(int node, int firstGpu, int count) {
    }

    public Placement {
        slices = List.copyOf(slices);
    }

    public int gpus() {
        return slices.stream().mapToInt(Slice::count).sum();
    }

    /** "node-1[0-3]+node-2[0-7]", the form schedule.csv uses. */
    public String describe(Cluster cluster) {
        return slices.stream()
                .map(s -> cluster.nodes().get(s.node()).name() + "[" + s.firstGpu() + "-" + (s.firstGpu() + s.count() - 1) + "]")
                .collect(Collectors.joining("+"));
    }
}
