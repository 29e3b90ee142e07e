package dev.horizon.nvml.error;

/** LIBRARY_NOT_FOUND: libnvidia-ml could not be loaded; the hint says where it was looked for. */
public class NvmlLibraryNotFoundException extends NvmlDriverUnavailableException {
    private static final long serialVersionUID = 1L;

    public NvmlLibraryNotFoundException(String function, String detail, String hint, Throwable cause) {
        super(NvmlError.LIBRARY_NOT_FOUND.code(), function, detail, hint, cause);
    }
}
