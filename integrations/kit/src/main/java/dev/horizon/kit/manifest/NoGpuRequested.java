package dev.horizon.kit.manifest;

/**
 * What every adapter's refusal of work that asks for no GPU is: the policy that such work is not Horizon's to plan.
 * Translation refuses it with a {@link ManifestException} that implements this, and the reconciler leaves the workload
 * to its own scheduler untouched.
 */
public interface NoGpuRequested {
}
