package dev.horizon.nvml.error;

/** No such GPU, UUID, MIG device or instance: NOT_FOUND, GPU_NOT_FOUND. */
public class NvmlNotFoundException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlNotFoundException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
