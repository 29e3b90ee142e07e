package dev.horizon.kit.manifest;

import dev.horizon.kubernetes.GpuResources;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The one rule for accelerators that are not NVIDIA GPUs (TPUs, AMD and Intel GPUs, Neuron, Gaudi, FPGAs), in
 * Kubernetes resource names ("amd.com/gpu") and Ray resource names ("TPU"): Horizon cannot plan them, so a manifest or
 * request that asks for one is refused in the same words by every adapter, naming the field.
 */
public final class Accelerators {
    public static final String GPU_RESOURCE = GpuResources.GPU;
    public static final String MIG_PREFIX = GpuResources.MIG_PREFIX;
    /** What Horizon plans, as every refusal of another accelerator says it. */
    public static final String ONLY_NVIDIA = "Horizon plans NVIDIA GPUs only, as " + GPU_RESOURCE + " and " + MIG_PREFIX + "<profile>";
    /** Words that name an accelerator when a part of a resource name starts with one ("google.com/tpu", "TPU-v4-16-head"). */
    private static final List<String> ACCELERATOR_WORDS = List.of("gpu", "tpu", "neuron", "gaudi", "hpu", "fpga");

    private Accelerators() {
    }

    /** Whether the resource names an accelerator Horizon does not plan; NVIDIA's own GPU and MIG resources are not. */
    public static boolean isOther(String resource) {
        if (resource.equals(GPU_RESOURCE) || resource.startsWith(MIG_PREFIX)) return false;
        return Arrays.stream(resource.toLowerCase(Locale.ROOT).split("[^a-z0-9]+"))
                .anyMatch(part -> ACCELERATOR_WORDS.stream().anyMatch(part::startsWith));
    }

    /** Refuses a resource that names another accelerator; {@code field} is where the manifest or request asks for it. */
    public static void refuseOther(String resource, String field) {
        if (isOther(resource)) throw new UnsupportedAcceleratorException(field, resource);
    }

    /** Why a resource that names another accelerator is refused, without the field ("asks for 'amd.com/gpu'; ..."). */
    public static String refusal(String resource) {
        return "asks for '" + resource + "'; " + ONLY_NVIDIA;
    }

    /** The refusal of an accelerator Horizon does not plan. */
    public static final class UnsupportedAcceleratorException extends ManifestException {
        UnsupportedAcceleratorException(String field, String resource) {
            super(field + ": " + refusal(resource));
        }
    }
}
