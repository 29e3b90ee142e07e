package dev.horizon.nvml.error;

/**
 * NVML cannot talk to the driver at all: DRIVER_NOT_LOADED, LIB_RM_VERSION_MISMATCH, and
 * LIBRARY_NOT_FOUND (see {@link NvmlLibraryNotFoundException}).
 */
public class NvmlDriverUnavailableException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlDriverUnavailableException(int code, String function, String detail, String hint, Throwable cause) {
        super(code, function, detail, hint, cause);
    }
}
