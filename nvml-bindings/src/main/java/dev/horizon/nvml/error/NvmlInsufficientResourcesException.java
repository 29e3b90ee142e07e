package dev.horizon.nvml.error;

/** It does not fit: INSUFFICIENT_RESOURCES (no room for that MIG instance), MEMORY. */
public class NvmlInsufficientResourcesException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlInsufficientResourcesException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
