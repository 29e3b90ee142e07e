package dev.horizon.nvml.error;

/** Worth retrying: TIMEOUT, NO_DATA, NOT_READY. */
public class NvmlTransientException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlTransientException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
