package dev.horizon.ray.translate;

/**
 * The same policy as for Kubeflow jobs: work that asks for no GPU is not Horizon's. Translation refuses it with this
 * reason, and such clusters are left to the default scheduler untouched.
 */
public class NoGpuRequestedException extends RayTranslationException {
    public NoGpuRequestedException(String what) {
        super(what + " asks for no GPU (no nvidia.com/gpu limit, rayStartParams num-gpus or GPU resource in any group);"
                + " Horizon plans GPU work only and leaves CPU-only Ray clusters to the default scheduler");
    }
}
