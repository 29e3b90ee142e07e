package dev.horizon.kit.manifest;

/** A manifest Horizon cannot read or plan; the message starts with the field (or the object) and says why. */
public class ManifestException extends IllegalArgumentException {
    public ManifestException(String message) {
        super(message);
    }
}
