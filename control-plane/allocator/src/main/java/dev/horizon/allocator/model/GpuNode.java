package dev.horizon.allocator.model;

/** One host: its GPU model, how many GPUs, their memory, and the NVLink domain it belongs to. */
public record GpuNode(String name, String gpuModel, int gpus, long gpuMemoryMiB, String nvlinkDomain) {
    public GpuNode {
        if (gpus < 1 || gpus > 64) throw new IllegalArgumentException("node " + name + ": gpus must be 1..64 (got " + gpus + ")");
    }
}
