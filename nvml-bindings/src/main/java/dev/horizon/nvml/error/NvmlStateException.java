package dev.horizon.nvml.error;

/** Not now: IN_USE, INVALID_STATE, UNINITIALIZED (a closed session), ALREADY_INITIALIZED. */
public class NvmlStateException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlStateException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
