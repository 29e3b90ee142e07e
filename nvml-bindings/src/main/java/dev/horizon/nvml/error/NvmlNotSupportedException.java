package dev.horizon.nvml.error;

/** The GPU or driver does not offer this: NOT_SUPPORTED, FUNCTION_NOT_FOUND, DEPRECATED and the like. */
public class NvmlNotSupportedException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlNotSupportedException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
