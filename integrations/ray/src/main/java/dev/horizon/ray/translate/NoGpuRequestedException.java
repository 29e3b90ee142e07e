package dev.horizon.ray.translate;

import dev.horizon.kit.manifest.NoGpuRequested;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The same policy as for Kubeflow jobs: work that asks for no GPU is not Horizon's. Translation refuses it with this
 * reason, and such clusters are left to the default scheduler untouched.
 */
public class NoGpuRequestedException extends RayTranslationException implements NoGpuRequested {
    /** @param unbacked GPUs advertised to Ray that no limit backs, which is likely why the user thought it asks for some */
    public NoGpuRequestedException(String what, List<String> unbacked) {
        super(what + " asks for no GPU (no nvidia.com/gpu limit or gpu-fraction annotation in any group); Horizon plans GPU work only"
                + " and leaves CPU-only Ray clusters to the default scheduler" + unbacked.stream().map(u -> "; " + u).collect(Collectors.joining()));
    }
}
