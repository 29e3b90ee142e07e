package dev.horizon.nvml;

/**
 * Told about every NVML call a session makes, as it returns: what the device check reports (each call by its NVML
 * name, with its answer and how long it took).
 */
@FunctionalInterface
public interface NvmlCallObserver {
    NvmlCallObserver NONE = (function, returnCode, nanos) -> { };

    /**
     * @param function the NVML symbol, e.g. nvmlDeviceGetMemoryInfo_v2
     * @param returnCode its nvmlReturn_t (NVML_ERROR_FUNCTION_NOT_FOUND's 13 when the driver lacks the symbol)
     * @param nanos how long the call took
     */
    void called(String function, int returnCode, long nanos);
}
