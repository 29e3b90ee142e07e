package dev.horizon.kit;

/**
 * What one replica of a served workload holds: its GPU pods (a LeaderWorkerSet group's, which serve only together; one
 * for a Deployment's replica) of gpusPerPod whole GPUs each, every pod on one node.
 */
public record ReplicaShape(int pods, int gpusPerPod) {
    public ReplicaShape {
        if (pods < 1 || gpusPerPod < 1) throw new IllegalArgumentException("a replica holds at least one pod of at least one GPU");
    }

    public int gpus() {
        return pods * gpusPerPod;
    }
}
