package dev.horizon.kubeflow.translate;

import dev.horizon.kit.manifest.ManifestException;

/** A Kubeflow manifest Horizon cannot plan; the message names the field and says why. */
public class TranslationException extends ManifestException {
    public TranslationException(String message) {
        super(message);
    }
}
