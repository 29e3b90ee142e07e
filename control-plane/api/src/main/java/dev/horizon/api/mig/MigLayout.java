package dev.horizon.api.mig;

import java.util.List;

/** The MIG instances of one GPU: which profile starts at which memory slice. Built only when NVIDIA would accept it. */
public record MigLayout(String model, List<Slot> slots) {
    /** One instance: a profile and the memory slice it starts at. */
    public record Slot(String profile, int start) {
        @Override
        public String toString() {
            return profile + " at slot " + start;
        }
    }

    public MigLayout {
        slots = List.copyOf(slots);
        List<String> problems = MigGeometry.of(model).problems(slots);
        if (!problems.isEmpty()) throw new InvalidMigLayoutException(model, problems);
    }

    public static MigLayout unpartitioned(String model) {
        return new MigLayout(model, List.of());
    }

    /** Compute slices in use, of 7. */
    public int computeSlices() {
        MigGeometry g = MigGeometry.of(model);
        return slots.stream().mapToInt(s -> g.profile(s.profile()).computeSlices()).sum();
    }

    /** A layout that NVIDIA would refuse, with every reason. */
    public static final class InvalidMigLayoutException extends IllegalArgumentException {
        private final List<String> reasons;

        InvalidMigLayoutException(String model, List<String> reasons) {
            super("invalid MIG layout for " + model + ": " + String.join("; ", reasons));
            this.reasons = List.copyOf(reasons);
        }

        public List<String> reasons() {
            return reasons;
        }
    }
}
