package dev.horizon.nvml;

/** nvmlComputeMode_t. */
public enum ComputeMode {
    DEFAULT,
    EXCLUSIVE_THREAD,
    PROHIBITED,
    EXCLUSIVE_PROCESS;

    public static ComputeMode of(int value) {
        ComputeMode[] all = values();
        if (value < 0 || value >= all.length) throw new IllegalArgumentException("unknown NVML compute mode " + value);
        return all[value];
    }
}
