package dev.horizon.kubernetes.dra;

/** Why a planned workload cannot be released yet, as one sentence for its condition; the next pass tries again. */
public final class NotReleasable extends RuntimeException {
    public NotReleasable(String message) {
        super(message);
    }
}
