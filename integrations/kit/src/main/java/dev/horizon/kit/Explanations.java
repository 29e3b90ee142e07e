package dev.horizon.kit;

/**
 * Where a kind keeps the reconciler's explanation of why a workload waits or runs: its {@link WorkloadReconciler#CONDITION}
 * status condition, the {@link WorkloadReconciler#EXPLANATION} annotation (for a kind whose status schema has no
 * conditions, which the API server would prune), or both. The last one written is read back, so each is said once.
 */
public enum Explanations {
    CONDITION, ANNOTATION, ANNOTATION_AND_CONDITION;

    public boolean annotation() {
        return this != CONDITION;
    }

    public boolean condition() {
        return this != ANNOTATION;
    }
}
