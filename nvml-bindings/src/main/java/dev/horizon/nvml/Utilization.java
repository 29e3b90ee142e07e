package dev.horizon.nvml;

/** Percent of the last sample period the GPU ran a kernel, and read or wrote device memory. */
public record Utilization(int gpuPercent, int memoryPercent) {}
