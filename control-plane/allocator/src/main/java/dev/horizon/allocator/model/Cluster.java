package dev.horizon.allocator.model;

import java.util.ArrayList;
import java.util.List;

/** The GPUs the allocator plans over. */
public record Cluster(List<GpuNode> nodes) {
    public Cluster {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) throw new IllegalArgumentException("a cluster needs at least one node");
    }

    /** totalGpus GPUs of one model, gpusPerNode to a node (the last node takes the remainder). */
    public static Cluster homogeneous(int totalGpus, int gpusPerNode, String model, long memoryMiB) {
        if (totalGpus < 1) throw new IllegalArgumentException("--gpus must be at least 1 (got " + totalGpus + ")");
        List<GpuNode> nodes = new ArrayList<>();
        for (int i = 0, left = totalGpus; left > 0; i++, left -= gpusPerNode) {
            nodes.add(new GpuNode("node-" + i, model, Math.min(gpusPerNode, left), memoryMiB, "nvl-" + i));
        }
        return new Cluster(nodes);
    }

    public int totalGpus() {
        return nodes.stream().mapToInt(GpuNode::gpus).sum();
    }

    /** Node n's NVLink domain; a node that reports none is a domain of its own. */
    public String domainOf(int n) {
        GpuNode node = nodes.get(n);
        return node.nvlinkDomain() == null || node.nvlinkDomain().isBlank() ? "node:" + node.name() : node.nvlinkDomain();
    }

    public int largestNode() {
        return nodes.stream().mapToInt(GpuNode::gpus).max().orElse(0);
    }
}
