package dev.horizon.nvml;

import java.util.List;

/**
 * A GPU instance profile as the driver lists it (nvidia-smi mig -lgip / -lgipp): "1g.10gb" is one
 * of seven compute slices with about 10 GB of memory.
 *
 * @param profileId the id NVML creates instances with (19 for 1g.10gb, 0 for 7g.80gb, ...)
 * @param name profile name without the "MIG " prefix
 * @param sliceCount compute slices
 * @param instanceCount how many the GPU can hold at most
 * @param remainingCapacity how many more fit now
 * @param placements every placement the profile can take (memory slices), free or not
 */
public record GpuInstanceProfile(int profileId, String name, int sliceCount, int instanceCount, int remainingCapacity,
                         long memoryMiB, int multiprocessorCount, int copyEngines, int decoders, int encoders,
                         int jpegEngines, int ofaEngines, List<MigPlacement> placements) {
    public GpuInstanceProfile {
        placements = List.copyOf(placements);
    }

    /** Memory slices an instance of this profile takes. */
    public int placementSize() {
        return placements.isEmpty() ? 0 : placements.get(0).size();
    }
}
