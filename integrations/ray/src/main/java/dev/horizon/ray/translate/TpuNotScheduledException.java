package dev.horizon.ray.translate;

/** Horizon plans NVIDIA GPUs; a TPU ask (KubeRay's GKE samples, Ray's TPU resources) is refused by name. */
public class TpuNotScheduledException extends RayTranslationException {
    public static final String REASON = "TPUs are not scheduled by Horizon";

    public TpuNotScheduledException(String field) {
        super(field + ": asks for TPUs; " + REASON + ", which plans NVIDIA GPUs only");
    }
}
