package dev.horizon.nvml;

/**
 * A critical Xid the driver reported (79: the GPU fell off the bus, 48: double-bit ECC error, ...).
 * The instance ids are null unless the error is attributed to a MIG instance.
 */
public record XidEvent(int gpuIndex, long xid, Integer gpuInstanceId, Integer computeInstanceId) {}
