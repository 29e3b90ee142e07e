package dev.horizon.kit;

/**
 * What one replica of a served workload holds: its GPU pods (a LeaderWorkerSet group's, which serve only together; one
 * for a Deployment's replica) of gpusPerPod whole GPUs each, every pod on one node; oneDomain: every pod in one NVLink
 * domain (a LeaderWorkerSet that asks for its group's exclusive topology).
 */
public record ReplicaShape(int pods, int gpusPerPod, boolean oneDomain) {
    public ReplicaShape {
        if (pods < 1 || gpusPerPod < 1) throw new IllegalArgumentException("a replica holds at least one pod of at least one GPU");
    }

    /** Pods placed wherever each fits. */
    public ReplicaShape(int pods, int gpusPerPod) {
        this(pods, gpusPerPod, false);
    }

    public int gpus() {
        return pods * gpusPerPod;
    }
}
