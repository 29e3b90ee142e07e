package dev.horizon.api.mig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The MIG geometry of the GPU models Horizon partitions, from NVIDIA's MIG user guide (supported profiles and their
 * placements, as `nvidia-smi mig -lgipp` lists them): every model has 7 compute slices and 8 memory slices, and the
 * same placement rules; only the memory per slice, hence the profile names, differ.
 */
public final class MigGeometry {
    public static final int COMPUTE_SLICES = 7;
    public static final int MEMORY_SLICES = 8;

    private static final Map<String, MigGeometry> MODELS = new LinkedHashMap<>();

    static {
        add("A100-40GB", "1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb");
        add("A100-80GB", "1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb");
        add("H100-80GB", "1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb");
        add("H100-94GB", "1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb");
        add("H200-141GB", "1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb");
        add("B200-180GB", "1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb");
    }

    /** The six profile shapes in the order of the names given to add: (compute, memory slices, valid starts). */
    private static void add(String model, String... names) {
        List<MigProfile> profiles = List.of(
                new MigProfile(names[0], 1, 1, List.of(0, 1, 2, 3, 4, 5, 6)),
                new MigProfile(names[1], 1, 2, List.of(0, 2, 4, 6)),
                new MigProfile(names[2], 2, 2, List.of(0, 2, 4)),
                new MigProfile(names[3], 3, 4, List.of(0, 4)),
                new MigProfile(names[4], 4, 4, List.of(0)),
                new MigProfile(names[5], 7, 8, List.of(0)));
        MODELS.put(model, new MigGeometry(model, profiles));
    }

    private final String model;
    private final Map<String, MigProfile> profiles = new LinkedHashMap<>();

    private MigGeometry(String model, List<MigProfile> profiles) {
        this.model = model;
        for (MigProfile p : profiles) this.profiles.put(p.name(), p);
    }

    /** The geometry of a model, or an error naming the models that support MIG. */
    public static MigGeometry of(String model) {
        MigGeometry g = MODELS.get(model);
        if (g == null) throw new IllegalArgumentException("GPU model '" + model + "' has no MIG geometry; MIG models: " + MODELS.keySet());
        return g;
    }

    public static boolean supportsMig(String model) {
        return MODELS.containsKey(model);
    }

    /** The models that support MIG, for errors that list the valid choices. */
    public static List<String> models() {
        return List.copyOf(MODELS.keySet());
    }

    /**
     * Every profile name any model offers, with its compute slices: a name means the same compute share on every model
     * that has it (1g.10gb is 1 of 7 slices on A100-40GB, A100-80GB and H100-80GB alike).
     */
    public static Map<String, Integer> computeSlicesByProfile() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (MigGeometry g : MODELS.values()) for (MigProfile p : g.profiles.values()) out.put(p.name(), p.computeSlices());
        return out;
    }

    public String model() {
        return model;
    }

    public List<MigProfile> profiles() {
        return List.copyOf(profiles.values());
    }

    /** A profile of this model, or an error naming the profiles it has. */
    public MigProfile profile(String name) {
        MigProfile p = profiles.get(name);
        if (p == null) throw new IllegalArgumentException("unknown MIG profile '" + name + "' for " + model + "; use one of " + profiles.keySet());
        return p;
    }

    /** Why this layout cannot be made on one GPU of this model: one reason per problem, empty when it is valid. */
    public List<String> problems(List<MigLayout.Slot> slots) {
        List<String> problems = new ArrayList<>();
        // The placement rules alone keep compute within 7 slices: no valid set of starts fits more without overlapping.
        MigLayout.Slot[] owner = new MigLayout.Slot[MEMORY_SLICES];
        for (MigLayout.Slot s : slots) {
            MigProfile p = profiles.get(s.profile());
            if (p == null) {
                problems.add("unknown MIG profile '" + s.profile() + "' for " + model + "; use one of " + profiles.keySet());
                continue;
            }
            if (!p.starts().contains(s.start())) {
                problems.add(s + ": " + p.name() + " may start only at slots " + p.starts());
                continue;
            }
            for (int i = s.start(); i < s.start() + p.memorySlices(); i++) {
                if (owner[i] != null) {
                    problems.add(s + " overlaps " + owner[i] + " at memory slice " + i);
                    break;
                }
                owner[i] = s;
            }
        }
        return problems;
    }
}
