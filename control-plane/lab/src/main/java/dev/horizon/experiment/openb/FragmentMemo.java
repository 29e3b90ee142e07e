package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import dev.horizon.allocator.fragmentation.TargetWorkload;
import java.util.HashMap;
import java.util.Map;

/** A node's current fragmentation, remembered until the node changes, and the fragmentation a placement would leave. */
final class FragmentMemo {
    private final TargetWorkload workload;
    private final Map<NodeRoom, double[]> byNode = new HashMap<>();

    FragmentMemo(TargetWorkload workload) {
        this.workload = workload;
    }

    double of(NodeRoom n) {
        double[] v = byNode.get(n);
        if (v == null || v[0] != n.version) {
            v = new double[] {n.version, workload.fragment(n.node.model(), n.cpuLeft, n.memLeft, n.gpuLeft)};
            byNode.put(n, v);
        }
        return v[1];
    }

    static double afterShare(TargetWorkload workload, NodeRoom n, WorkloadTask pod, int gpu) {
        int[] left = n.gpuLeft.clone();
        left[gpu] -= pod.gpuMilli();
        return workload.fragment(n.node.model(), n.cpuLeft - pod.cpuMilli(), n.memLeft - pod.memoryMiB(), left);
    }

    static double afterWhole(TargetWorkload workload, NodeRoom n, WorkloadTask pod) {
        int[] left = n.gpuLeft.clone();
        for (int g : ScoredPolicy.wholeGpus(pod, n)) left[g] = 0;
        return workload.fragment(n.node.model(), n.cpuLeft - pod.cpuMilli(), n.memLeft - pod.memoryMiB(), left);
    }
}
