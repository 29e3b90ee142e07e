package dev.horizon.nvml.error;

/** GPU_IS_LOST: the GPU fell off the bus; drain the node and reset the GPU. */
public class NvmlGpuLostException extends NvmlGpuFaultException {
    private static final long serialVersionUID = 1L;

    NvmlGpuLostException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint);
    }
}
