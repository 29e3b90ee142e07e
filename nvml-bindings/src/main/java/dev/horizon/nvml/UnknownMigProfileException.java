package dev.horizon.nvml;

import java.util.List;

/** A MIG profile name this GPU does not have; the message lists the ones it has. */
public class UnknownMigProfileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final List<String> validProfiles;

    public UnknownMigProfileException(String message, List<String> validProfiles) {
        super(message);
        this.validProfiles = List.copyOf(validProfiles);
    }

    public List<String> validProfiles() {
        return validProfiles;
    }
}
