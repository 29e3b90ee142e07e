package dev.horizon.kubeflow.translate;

import dev.horizon.kit.manifest.NoGpuRequested;

/**
 * The policy for a job that asks for no GPU: it is not Horizon's to plan. Translation refuses it
 * with this reason, and the controller leaves such jobs to the default scheduler untouched.
 */
public class NoGpuRequestedException extends TranslationException implements NoGpuRequested {
    public NoGpuRequestedException(String what) {
        super(what + " asks for no GPU (no nvidia.com/gpu or nvidia.com/mig-<profile> limit in any replica); Horizon plans GPU work"
                + " only and leaves CPU-only jobs to the default scheduler");
    }
}
