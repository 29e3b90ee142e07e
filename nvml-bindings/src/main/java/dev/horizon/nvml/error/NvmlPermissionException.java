package dev.horizon.nvml.error;

/** The caller may not do this: NO_PERMISSION (MIG changes need root or CAP_SYS_ADMIN), OPERATING_SYSTEM. */
public class NvmlPermissionException extends NvmlException {
    private static final long serialVersionUID = 1L;

    NvmlPermissionException(int code, String function, String detail, String hint) {
        super(code, function, detail, hint, null);
    }
}
