package dev.horizon.nvml;

/**
 * A compute instance inside GPU instance {@code gpuInstanceId}; {@code profile} is "3g.40gb" when it
 * uses the whole GPU instance, "1c.3g.40gb" for one of its compute slices.
 */
public record ComputeInstance(int gpuIndex, int gpuInstanceId, int id, int profileId, String profile,
                              MigPlacement placement) {}
