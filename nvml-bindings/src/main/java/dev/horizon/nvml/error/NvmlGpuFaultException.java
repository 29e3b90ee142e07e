package dev.horizon.nvml.error;

/** The GPU itself is in trouble: RESET_REQUIRED, CORRUPTED_INFOROM, IRQ_ISSUE, INSUFFICIENT_POWER, and GPU_IS_LOST (see {@link NvmlGpuLostException}). */
public class NvmlGpuFaultException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlGpuFaultException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
