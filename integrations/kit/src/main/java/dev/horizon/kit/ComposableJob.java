package dev.horizon.kit;

import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kubernetes.KubernetesRefusal;
import dev.horizon.kubernetes.dra.NotReleasable;
import java.util.Map;

/**
 * A workload that becomes several scheduler jobs, each planned onto its own nodes (a Ray cluster: its head and each GPU
 * worker group), in the spirit of Kueue's ComposableJob. It runs only whole: it is released once every one of its jobs
 * is planned and held again when any is preempted. Their ids are kept by job name in {@link WorkloadReconciler#JOB_IDS}.
 */
public non-sealed interface ComposableJob extends HeldWorkload {
    /**
     * Pins each part to its scheduler job's placement (by job name, in submission order) and lets the workload run.
     * Throws {@link NotReleasable} or {@link KubernetesRefusal} when the cluster cannot take it yet.
     */
    Release runOn(Map<String, PlannedPlacement> placementsByJobName);
}
