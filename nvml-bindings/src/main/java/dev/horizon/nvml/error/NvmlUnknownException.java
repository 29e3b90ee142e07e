package dev.horizon.nvml.error;

/** UNKNOWN (999) and return codes newer than these bindings. */
public class NvmlUnknownException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlUnknownException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
