package dev.horizon.nvml;

/**
 * What CUDA sees as a device when MIG is on: one compute instance of one GPU instance.
 *
 * @param gpuIndex the parent GPU
 * @param index its index among the parent's MIG devices
 * @param uuid the MIG-... UUID that CUDA_VISIBLE_DEVICES takes
 * @param profile the GPU instance profile, e.g. "1g.10gb"
 * @param placement the GPU instance's memory slices
 * @param multiprocessorCount SMs of the compute instance, null if the driver does not say
 */
public record MigDevice(int gpuIndex, int index, String uuid, String name, int gpuInstanceId, int computeInstanceId,
                        String profile, MigPlacement placement, MemoryInfo memory, Integer multiprocessorCount) {}
