package dev.horizon.kubeflow.translate;

/** A manifest Horizon cannot plan; the message names the field and says why. */
public class TranslationException extends IllegalArgumentException {
    public TranslationException(String message) {
        super(message);
    }
}
