package dev.horizon.api.integration;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * One device the plan gave a job, in the order of the placement: replica r of a job with k devices per replica holds
 * devices r*k .. r*k+k-1. It is a whole GPU, a MIG instance on one (migProfile; migUuid once the instance exists), or a
 * time-slicing share of one (share, with sharing saying how that GPU is shared). gpuUuid is the GPU's UUID (the parent's,
 * for a MIG instance) and gpuIndex its NVML index on node. gpuMode says how the node's pool hands GPUs to pods on
 * Kubernetes; null where the control plane does not run on Kubernetes.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PlannedDevice(String node, int gpuIndex, String gpuUuid, String migProfile, String migUuid, Share share, Sharing sharing,
                            GpuMode gpuMode) {
    /** A time-slicing share: its part of the GPU's time in thousandths and its memory. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Share(int gpuMilli, long memoryMiB) {
    }

    /** How a shared GPU is shared, as the control plane asked: TIME_SLICING with replicas, or MPS with its limits. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Sharing(String mode, int replicas, Integer activeThreadPercentage, Long memoryLimitMiB) {
        public boolean mps() {
            return "MPS".equals(mode);
        }
    }

    public static PlannedDevice wholeGpu(String node, int gpuIndex, String gpuUuid, GpuMode mode) {
        return new PlannedDevice(node, gpuIndex, gpuUuid, null, null, null, null, mode);
    }

    public boolean mig() {
        return migProfile != null;
    }

    public boolean shared() {
        return share != null;
    }
}
