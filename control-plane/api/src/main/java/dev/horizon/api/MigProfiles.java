package dev.horizon.api;

import dev.horizon.api.mig.MigGeometry;
import java.util.List;
import java.util.Map;

/**
 * The MIG profile names a job may ask for, whatever the GPU model: a view of {@link MigGeometry}, the one source of
 * truth, so a profile the planner can place is exactly a profile a job may name.
 */
public final class MigProfiles {
    private static final Map<String, Integer> COMPUTE_SLICES = MigGeometry.computeSlicesByProfile();

    private MigProfiles() {
    }

    public static boolean isKnown(String profile) {
        return COMPUTE_SLICES.containsKey(profile);
    }

    public static List<String> known() {
        return List.copyOf(COMPUTE_SLICES.keySet());
    }

    /** The share of a GPU a profile is counted as in quota and fair share: its compute slices of 7. */
    public static double gpuFraction(String profile) {
        Integer slices = COMPUTE_SLICES.get(profile);
        if (slices == null) throw new IllegalArgumentException("unknown MIG profile '" + profile + "'; use one of " + known());
        return slices / (double) MigGeometry.COMPUTE_SLICES;
    }
}
