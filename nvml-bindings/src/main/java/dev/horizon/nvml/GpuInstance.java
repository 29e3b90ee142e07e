package dev.horizon.nvml;

/** A MIG GPU instance: a share of memory slices (its placement) and compute slices on GPU {@code gpuIndex}. */
public record GpuInstance(int gpuIndex, int id, int profileId, String profile, MigPlacement placement) {}
