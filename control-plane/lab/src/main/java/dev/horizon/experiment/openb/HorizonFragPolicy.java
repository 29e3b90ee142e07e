package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import dev.horizon.allocator.fragmentation.TargetWorkload;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Horizon's fragmentation-aware placement. It keeps FGD's fragmentation gradient on the same integer scale, so that
 * placements whose fragmentation changes differ by less than a score point tie, and calibrates it in these ways, each
 * measured on the openb traces:
 * <ul>
 * <li>the target workload has every task shape and counts host memory (TargetWorkload.complete), so GPUs stranded
 * behind spent memory or reserved for rare wide tasks count as fragmentation;</li>
 * <li>GPU models that type-constrained demand needs are avoided in proportion to that demand over their capacity, so
 * tasks that can run anywhere do not take the GPUs that constrained tasks cannot do without. On gpuspec33 this halves
 * the unallocated share at 100% arrival;</li>
 * <li>a tie goes to the node that is busiest already by its dominant resource, the larger of its used GPU and used
 * CPU shares (FGD sends it to an arbitrary node). Filling busy nodes first keeps whole nodes free for the multi-GPU
 * tasks and the CPU-hungry tasks still to come; on the default list this cuts the unallocated share by about 0.25
 * points at both 100% and 130% arrival. GPU share alone did as well there but cost 0.17 points on gpuspec10; counting
 * CPU as well removes that loss;</li>
 * <li>a share goes to the fullest GPU among those of equal score.</li>
 * </ul>
 */
final class HorizonFragPolicy extends ScoredPolicy {
    /** Score points (of FGD's 0-100) given up per unit of a model's constrained-demand pressure; 10 measured best of 4-100. */
    static final double PRESSURE_WEIGHT = 10;

    private final TargetWorkload workload;
    private final FragmentMemo before;
    private final Map<String, Double> pressure = new HashMap<>();

    HorizonFragPolicy(List<WorkloadTask> pods, List<OpenbNode> nodes) {
        this.workload = TargetWorkload.complete(pods);
        this.before = new FragmentMemo(workload);
        Map<String, Long> capacity = new HashMap<>();
        for (OpenbNode n : nodes) capacity.merge(n.model(), (long) n.gpus() * WorkloadTask.MILLI, Long::sum);
        Map<Set<String>, Long> demand = new HashMap<>();
        for (WorkloadTask p : pods) if (!p.gpuTypes().isEmpty()) demand.merge(p.gpuTypes(), p.totalGpuMilli(), Long::sum);
        demand.forEach((types, d) -> {
            long cap = types.stream().mapToLong(t -> capacity.getOrDefault(t, 0L)).sum();
            for (String t : types) if (cap > 0) pressure.merge(t, d / (double) cap, Double::sum);
        });
    }

    /** Constrained demand on a model: for each set of accepted models, its demand over their capacity, summed. */
    double pressure(String model) {
        return pressure.getOrDefault(model, 0.0);
    }

    @Override
    Choice score(WorkloadTask pod, NodeRoom n) {
        double now = before.of(n);
        double penalty = pod.numGpu() == 0 ? 0 : Math.floor(PRESSURE_WEIGHT * pressure(n.node.model()));
        double used = dominantUsedShare(n);
        if (pod.sharesGpu()) {
            // Among GPUs of equal score the fullest wins (best fit), keeping emptier GPUs whole for whole-GPU tasks.
            return bestShareGpu(pod, n, gpu -> TargetWorkload.scale(now - FragmentMemo.afterShare(workload, n, pod, gpu)) - penalty
                    - n.gpuLeft[gpu] * 1e-6, used);
        }
        return new Choice(TargetWorkload.scale(now - FragmentMemo.afterWhole(workload, n, pod)) - penalty, used, wholeGpus(pod, n));
    }

    /**
     * The tie-break: the larger of the node's used GPU and used CPU shares before this task. Measured before rather
     * than after the task: after would favour whichever task is wider, not whichever node is busier (on GPU share alone,
     * 0.35 points worse on default).
     */
    static double dominantUsedShare(NodeRoom n) {
        double cpu = n.node.cpuMilli() == 0 ? 0 : 1 - n.cpuLeft / (double) n.node.cpuMilli();
        double gpu = n.gpuLeft.length == 0 ? 0 : 1 - n.gpuMilliLeft() / ((double) WorkloadTask.MILLI * n.gpuLeft.length);
        return Math.max(cpu, gpu);
    }
}
