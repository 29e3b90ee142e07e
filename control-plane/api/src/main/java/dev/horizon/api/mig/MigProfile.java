package dev.horizon.api.mig;

import java.util.List;

/**
 * One MIG profile of one GPU model, as NVIDIA documents it: compute slices (of 7), memory slices (of 8) and the
 * memory-slice indexes where an instance of it may start.
 */
public record MigProfile(String name, int computeSlices, int memorySlices, List<Integer> starts) {
    public MigProfile {
        starts = List.copyOf(starts);
    }

    /** The share of the GPU this profile is counted as in quota and fair share: its compute slices of 7. */
    public double gpuFraction() {
        return computeSlices / (double) MigGeometry.COMPUTE_SLICES;
    }
}
