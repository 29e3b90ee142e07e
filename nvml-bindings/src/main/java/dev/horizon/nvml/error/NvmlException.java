package dev.horizon.nvml.error;

import java.util.Objects;

/**
 * An NVML call answered something other than NVML_SUCCESS. The subclass says what kind of trouble
 * it is (see {@link #of}); {@link #error()} the exact code, {@link #hint()} what a person can do,
 * and {@link #getMessage()} says all of it on one line.
 */
public class NvmlException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final String function;
    private final String detail;
    private final String hint;

    protected NvmlException(int code, String function, String detail, String hint, Throwable cause) {
        super(null, cause);
        this.code = code;
        this.function = Objects.requireNonNull(function, "function");
        this.detail = detail == null || detail.isBlank() ? null : oneLine(detail);
        this.hint = hint == null || hint.isBlank() ? NvmlError.of(code).hint() : oneLine(hint);
    }

    /**
     * The typed exception for an NVML return code.
     *
     * @param code the nvmlReturn_t value, not NVML_SUCCESS
     * @param function the NVML function that answered it
     * @param detail what the driver said (nvmlErrorString) or more context, may be null
     */
    public static NvmlException of(int code, String function, String detail) {
        return of(code, function, detail, null);
    }

    /** As {@link #of(int, String, String)}, with a hint that replaces the code's usual one. */
    public static NvmlException of(int code, String function, String detail, String hint) {
        NvmlError error = NvmlError.of(code);
        switch (error) {
            case SUCCESS:
                throw new IllegalArgumentException("NVML_SUCCESS is not an error");
            case NOT_SUPPORTED: case FUNCTION_NOT_FOUND: case VGPU_ECC_NOT_SUPPORTED: case FREQ_NOT_SUPPORTED:
            case DEPRECATED: case RESET_TYPE_NOT_SUPPORTED:
                return new NvmlNotSupportedException(code, function, detail, hint);
            case NO_PERMISSION: case OPERATING_SYSTEM:
                return new NvmlPermissionException(code, function, detail, hint);
            case NOT_FOUND: case GPU_NOT_FOUND:
                return new NvmlNotFoundException(code, function, detail, hint);
            case INVALID_ARGUMENT: case INSUFFICIENT_SIZE: case ARGUMENT_VERSION_MISMATCH:
                return new NvmlInvalidArgumentException(code, function, detail, hint);
            case UNINITIALIZED: case ALREADY_INITIALIZED: case IN_USE: case INVALID_STATE:
                return new NvmlStateException(code, function, detail, hint);
            case INSUFFICIENT_RESOURCES: case MEMORY:
                return new NvmlInsufficientResourcesException(code, function, detail, hint);
            case GPU_IS_LOST:
                return new NvmlGpuLostException(code, function, detail, hint);
            case INSUFFICIENT_POWER: case IRQ_ISSUE: case CORRUPTED_INFOROM: case RESET_REQUIRED:
                return new NvmlGpuFaultException(code, function, detail, hint);
            case LIBRARY_NOT_FOUND:
                return new NvmlLibraryNotFoundException(function, detail, hint, null);
            case DRIVER_NOT_LOADED: case LIB_RM_VERSION_MISMATCH:
                return new NvmlDriverUnavailableException(code, function, detail, hint, null);
            case TIMEOUT: case NO_DATA: case NOT_READY:
                return new NvmlTransientException(code, function, detail, hint);
            case UNKNOWN:
            default:
                return new NvmlUnknownException(code, function, detail, hint);
        }
    }

    /** The return code as the driver gave it (also for codes these bindings do not know). */
    public int code() {
        return code;
    }

    /** The code's meaning; {@link NvmlError#UNKNOWN} for codes newer than these bindings. */
    public NvmlError error() {
        return NvmlError.of(code);
    }

    /** NVML_ERROR_GPU_IS_LOST, or "NVML return code 42" for a code these bindings do not know. */
    public String errorName() {
        return NvmlError.isKnown(code) ? error().constantName() : "NVML return code " + code;
    }

    public String function() {
        return function;
    }

    /** What the driver said about it, or more context; null when nothing more is known. */
    public String detail() {
        return detail;
    }

    public String hint() {
        return hint;
    }

    @Override
    public String getMessage() {
        StringBuilder text = new StringBuilder().append(function).append(": ").append(errorName());
        if (detail != null) text.append(" (").append(detail).append(')');
        return text.append("; hint: ").append(hint).toString();
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
    }
}
