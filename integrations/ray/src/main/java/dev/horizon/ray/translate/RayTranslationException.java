package dev.horizon.ray.translate;

import dev.horizon.kit.manifest.ManifestException;

/** A Ray manifest or demand Horizon cannot plan; the message names the field and says why. */
public class RayTranslationException extends ManifestException {
    public RayTranslationException(String message) {
        super(message);
    }
}
