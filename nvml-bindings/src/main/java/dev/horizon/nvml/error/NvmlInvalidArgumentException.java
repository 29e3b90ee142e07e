package dev.horizon.nvml.error;

/** The call named something the GPU does not have: INVALID_ARGUMENT, INSUFFICIENT_SIZE, ARGUMENT_VERSION_MISMATCH. */
public class NvmlInvalidArgumentException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlInvalidArgumentException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
