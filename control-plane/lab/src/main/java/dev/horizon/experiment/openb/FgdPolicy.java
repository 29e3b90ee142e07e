package dev.horizon.experiment.openb;

import dev.horizon.allocator.fragmentation.WorkloadTask;
import dev.horizon.allocator.fragmentation.TargetWorkload;
/**
 * FGD (Weng et al., ATC'23), re-implemented from the paper's description: place the task where it grows the expected
 * fragmentation against the target workload least. As in the reference scheduler plugin, the score is the sigmoid of
 * the fragmentation decrease (in GPUs) on Kubernetes' 0-100 integer scale, ties go to a random node, and a share takes
 * the GPU with the best score (the first on a tie).
 */
final class FgdPolicy extends ScoredPolicy {
    private final TargetWorkload workload;
    private final FragmentMemo before;

    FgdPolicy(TargetWorkload workload) {
        this.workload = workload;
        this.before = new FragmentMemo(workload);
    }

    @Override
    Choice score(WorkloadTask pod, NodeRoom n) {
        double now = before.of(n);
        if (pod.sharesGpu()) {
            return bestShareGpu(pod, n, gpu -> TargetWorkload.scale(now - FragmentMemo.afterShare(workload, n, pod, gpu)), 0);
        }
        return new Choice(TargetWorkload.scale(now - FragmentMemo.afterWhole(workload, n, pod)), 0, wholeGpus(pod, n));
    }
}
