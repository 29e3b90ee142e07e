package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import java.util.Arrays;

/** What is left on one node while the experiment runs: CPU, memory and each GPU's free milli-GPU. */
public final class NodeRoom {
    final OpenbNode node;
    int cpuLeft;
    long memLeft;
    final int[] gpuLeft;
    /** Position in the seeded node order that breaks exact ties. */
    final int rank;
    /** Bumped on every change so that policies can cache per-node scores. */
    int version;

    NodeRoom(OpenbNode node, int rank) {
        this.node = node;
        this.rank = rank;
        this.cpuLeft = node.cpuMilli();
        this.memLeft = node.memoryMiB();
        this.gpuLeft = new int[node.gpus()];
        Arrays.fill(gpuLeft, WorkloadTask.MILLI);
    }

    int fullyFreeGpus() {
        int n = 0;
        for (int g : gpuLeft) if (g == WorkloadTask.MILLI) n++;
        return n;
    }

    int gpuMilliLeft() {
        int s = 0;
        for (int g : gpuLeft) s += g;
        return s;
    }

    /** Whether the pod fits here at all: model, CPU, memory and GPU room. */
    boolean fits(WorkloadTask pod) {
        if (pod.cpuMilli() > cpuLeft || pod.memoryMiB() > memLeft) return false;
        if (pod.numGpu() == 0) return true;
        if (!pod.accepts(node.model())) return false;
        if (pod.sharesGpu()) {
            for (int g : gpuLeft) if (g >= pod.gpuMilli()) return true;
            return false;
        }
        return fullyFreeGpus() >= pod.numGpu();
    }

    /** The lowest-indexed fully free GPUs, as the reference simulator hands out whole GPUs. */
    int[] lowestFreeGpus(int count) {
        int[] ids = new int[count];
        int k = 0;
        for (int i = 0; i < gpuLeft.length && k < count; i++) if (gpuLeft[i] == WorkloadTask.MILLI) ids[k++] = i;
        return ids;
    }

    void place(WorkloadTask pod, int[] gpus) {
        cpuLeft -= pod.cpuMilli();
        memLeft -= pod.memoryMiB();
        for (int g : gpus) gpuLeft[g] -= pod.gpuMilli();
        version++;
    }
}
