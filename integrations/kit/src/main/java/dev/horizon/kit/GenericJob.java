package dev.horizon.kit;

import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kubernetes.KubernetesRefusal;
import dev.horizon.kubernetes.dra.NotReleasable;

/** A workload that becomes one scheduler job (a Kubeflow job, a batch Job): its id is kept in {@link WorkloadReconciler#JOB_ID}. */
public non-sealed interface GenericJob extends HeldWorkload {
    /**
     * Pins every GPU pod to the placement and lets the workload run. Throws {@link NotReleasable} or {@link KubernetesRefusal}
     * when the cluster cannot take it yet; the reconciler keeps it suspended, says why, and tries again on the next pass.
     */
    Release runOn(PlannedPlacement placement);
}
