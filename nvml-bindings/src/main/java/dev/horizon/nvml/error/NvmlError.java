package dev.horizon.nvml.error;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every NVML return code (nvmlReturn_t), with what a person can do about it. The hints are written
 * for the operator of a Horizon node, not for the author of the call.
 */
public enum NvmlError {
    SUCCESS(0, ""),
    UNINITIALIZED(1, "NVML was used before nvmlInit or after nvmlShutdown: use the NvmlSession inside"
            + " try-with-resources and not after close()"),
    INVALID_ARGUMENT(2, "a GPU index, handle, profile or placement is not valid for this GPU;"
            + " list the valid ones with `horizon smi` and `horizon smi mig profiles --gpu N`"),
    NOT_SUPPORTED(3, "this GPU or driver does not offer it (MIG needs an A100/H100-class GPU; utilization"
            + " is not reported while MIG is enabled); treat the value as unavailable"),
    NO_PERMISSION(4, "changing MIG needs root or CAP_SYS_ADMIN: run the agent as root, or grant it"
            + " CAP_SYS_ADMIN and access to /dev/nvidia-caps"),
    ALREADY_INITIALIZED(5, "NVML refused a second initialization (an old driver behaviour): make sure one"
            + " session is opened and closed at a time, or upgrade the driver"),
    NOT_FOUND(6, "no such GPU, UUID, MIG device or instance (it may have been destroyed); list them again"
            + " with `horizon smi`"),
    INSUFFICIENT_SIZE(7, "the driver's answer did not fit the buffer the bindings passed; please report"
            + " this as a bug in nvml-bindings"),
    INSUFFICIENT_POWER(8, "a power cable of the GPU is not connected properly; check the board's power"
            + " connectors"),
    DRIVER_NOT_LOADED(9, "the NVIDIA kernel driver is not loaded: check `nvidia-smi`, `lsmod | grep nvidia`"
            + " and `dmesg`; on a host without GPUs use the simulated driver (HORIZON_SIM_GPUS)"),
    TIMEOUT(10, "the driver did not answer in time (or no event arrived before the timeout); retry"),
    IRQ_ISSUE(11, "the kernel saw an interrupt problem with the GPU; check `dmesg` and the GPU's seating"),
    LIBRARY_NOT_FOUND(12, "install the NVIDIA driver (it provides libnvidia-ml.so.1), point"
            + " HORIZON_NVML_LIBRARY_PATH (or -Djna.library.path) at the folder holding it, or set"
            + " HORIZON_SIM_GPUS=2xH100-80GB to use the simulated driver"),
    FUNCTION_NOT_FOUND(13, "the installed driver is too old for this call; upgrade the NVIDIA driver"),
    CORRUPTED_INFOROM(14, "the GPU's infoROM is corrupted; run `nvidia-smi -q`, drain the GPU and contact"
            + " the hardware vendor"),
    GPU_IS_LOST(15, "the GPU fell off the bus or stopped answering (often after Xid 79): drain the node,"
            + " then reset the GPU (`nvidia-smi -r -i N`) or reboot"),
    RESET_REQUIRED(16, "the GPU needs a reset (for example to apply a MIG mode change): drain it, then"
            + " `nvidia-smi -r -i N` or reboot"),
    OPERATING_SYSTEM(17, "the operating system refused the request (device permissions, cgroup or a"
            + " container without the GPU devices); check /dev/nvidia* access"),
    LIB_RM_VERSION_MISMATCH(18, "libnvidia-ml and the loaded kernel module have different versions (driver"
            + " upgraded without a reboot): reboot or reload the nvidia kernel modules"),
    IN_USE(19, "processes or instances still use it: stop the processes, destroy compute instances before"
            + " their GPU instance, then retry"),
    MEMORY(20, "the driver ran out of memory; free host or GPU memory and retry"),
    NO_DATA(21, "no data yet (no samples collected); retry later"),
    VGPU_ECC_NOT_SUPPORTED(22, "this vGPU operation is not available while ECC is enabled"),
    INSUFFICIENT_RESOURCES(23, "not enough free MIG slices for that profile or placement: see what still"
            + " fits with `horizon smi mig profiles --gpu N`, or destroy instances first"),
    FREQ_NOT_SUPPORTED(24, "the requested clock frequency is not one this GPU supports"),
    ARGUMENT_VERSION_MISMATCH(25, "the driver does not know this struct version (it is older than the"
            + " bindings); upgrade the NVIDIA driver"),
    DEPRECATED(26, "the driver no longer provides this; a newer NVML call replaces it"),
    NOT_READY(27, "the system is not ready yet (for example the fabric manager is starting); retry shortly"),
    GPU_NOT_FOUND(28, "no GPU was found: check `lspci | grep -i nvidia` and that the GPUs are not excluded"),
    INVALID_STATE(29, "the resource is not in a state that allows this (for example a MIG mode change is"
            + " pending); check `horizon smi` and retry after the GPU is reset"),
    RESET_TYPE_NOT_SUPPORTED(30, "this kind of reset is not supported for the GPU; use a full GPU reset or"
            + " reboot"),
    UNKNOWN(999, "an internal driver error: check `dmesg` for Xid messages and the NVIDIA driver logs");

    private static final Map<Integer, NvmlError> BY_CODE =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(NvmlError::code, Function.identity()));

    private final int code;
    private final String hint;

    NvmlError(int code, String hint) {
        this.code = code;
        this.hint = hint;
    }

    public int code() {
        return code;
    }

    /** What to do about it, one sentence. */
    public String hint() {
        return hint;
    }

    /** The C constant: NVML_SUCCESS, NVML_ERROR_GPU_IS_LOST, ... */
    public String constantName() {
        return this == SUCCESS ? "NVML_SUCCESS" : "NVML_ERROR_" + name();
    }

    /** The error for a return code; codes newer than these bindings read as {@link #UNKNOWN}. */
    public static NvmlError of(int code) {
        return BY_CODE.getOrDefault(code, UNKNOWN);
    }

    public static boolean isKnown(int code) {
        return BY_CODE.containsKey(code);
    }
}
