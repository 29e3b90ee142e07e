package dev.horizon.allocator.model;

/**
 * One GPU of a cluster: GPU index {@code gpu} of node index {@code node} (indexes into {@link Cluster#nodes()} and into
 * that node's GPUs). The one key for a GPU in maps and sets; ordered by node, then GPU.
 */
public record GpuRef(int node, int gpu) implements Comparable<GpuRef> {
    @Override
    public int compareTo(GpuRef other) {
        return node != other.node ? Integer.compare(node, other.node) : Integer.compare(gpu, other.gpu);
    }
}
