package dev.horizon.ray.translate;

/** A Ray manifest or demand Horizon cannot plan; the message names the field and says why. */
public class RayTranslationException extends IllegalArgumentException {
    public RayTranslationException(String message) {
        super(message);
    }
}
