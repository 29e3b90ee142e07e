package dev.horizon.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The MIG profile names that NVIDIA GPUs offer, with the share of a GPU's compute each one gets (slices of 7). */
public final class MigProfiles {
    private static final Map<String, Integer> COMPUTE_SLICES = new LinkedHashMap<>();

    static {
        for (String p : List.of("1g.5gb", "1g.10gb", "1g.12gb", "1g.18gb", "1g.20gb", "1g.23gb", "1g.24gb", "1g.35gb", "1g.45gb")) COMPUTE_SLICES.put(p, 1);
        for (String p : List.of("2g.10gb", "2g.20gb", "2g.24gb", "2g.35gb", "2g.45gb")) COMPUTE_SLICES.put(p, 2);
        for (String p : List.of("3g.20gb", "3g.40gb", "3g.47gb", "3g.71gb", "3g.90gb")) COMPUTE_SLICES.put(p, 3);
        for (String p : List.of("4g.20gb", "4g.40gb", "4g.47gb", "4g.71gb", "4g.90gb")) COMPUTE_SLICES.put(p, 4);
        for (String p : List.of("7g.40gb", "7g.80gb", "7g.94gb", "7g.141gb", "7g.180gb")) COMPUTE_SLICES.put(p, 7);
    }

    private MigProfiles() {
    }

    public static boolean isKnown(String profile) {
        return COMPUTE_SLICES.containsKey(profile);
    }

    public static List<String> known() {
        return List.copyOf(COMPUTE_SLICES.keySet());
    }

    static double fractionOf(String profile) {
        Integer slices = COMPUTE_SLICES.get(profile);
        if (slices == null) throw new IllegalArgumentException("unknown MIG profile '" + profile + "'; use one of " + known());
        return slices / 7.0;
    }
}
