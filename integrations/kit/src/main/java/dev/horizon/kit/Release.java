package dev.horizon.kit;

/**
 * What releasing a workload did: {@code pinnedTo}, kept in its {@link WorkloadReconciler#PLACEMENT} annotation (whose
 * presence on a workload held again says Horizon preempted it), and {@code summary}, which follows "planned by Horizon:
 * released " in its explanation and event.
 */
public record Release(String pinnedTo, String summary) {
}
