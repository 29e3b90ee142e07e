package dev.horizon.nvml;

/**
 * A compute process on a GPU or MIG device. {@code usedMemoryBytes} is null when the driver cannot
 * tell (NVML_VALUE_NOT_AVAILABLE); the instance ids are null when the process is not on a MIG device;
 * {@code name} is null when the driver will not say.
 */
public record GpuProcess(int pid, String name, Long usedMemoryBytes, Integer gpuInstanceId, Integer computeInstanceId) {}
