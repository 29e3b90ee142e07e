package dev.horizon.api.mig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.mig.MigLayout.Slot;
import java.util.List;
import org.junit.jupiter.api.Test;

class MigLayoutTest {
    @Test
    void nvidiasDocumentedLayoutsAreAccepted() {
        assertEquals(7, new MigLayout("A100-40GB", List.of(new Slot("4g.20gb", 0), new Slot("3g.20gb", 4))).computeSlices());
        assertEquals(7, new MigLayout("H100-80GB", List.of(new Slot("1g.10gb", 0), new Slot("1g.10gb", 1), new Slot("1g.10gb", 2),
                new Slot("1g.10gb", 3), new Slot("1g.10gb", 4), new Slot("1g.10gb", 5), new Slot("1g.10gb", 6))).computeSlices());
        assertEquals(6, new MigLayout("H200-141GB", List.of(new Slot("3g.71gb", 0), new Slot("2g.35gb", 4), new Slot("1g.35gb", 6))).computeSlices());
        assertEquals(7, new MigLayout("A100-80GB", List.of(new Slot("7g.80gb", 0))).computeSlices());
    }

    @Test
    void aProfileOffItsPlacementsIsRejectedNamingProfileAndSlot() {
        MigLayout.InvalidMigLayoutException e = assertThrows(MigLayout.InvalidMigLayoutException.class,
                () -> new MigLayout("A100-80GB", List.of(new Slot("1g.20gb", 3))));
        assertEquals(List.of("1g.20gb at slot 3: 1g.20gb may start only at slots [0, 2, 4, 6]"), e.reasons());
        e = assertThrows(MigLayout.InvalidMigLayoutException.class, () -> new MigLayout("H100-80GB", List.of(new Slot("4g.40gb", 4))));
        assertEquals(List.of("4g.40gb at slot 4: 4g.40gb may start only at slots [0]"), e.reasons());
    }

    @Test
    void overlappingInstancesAreRejectedNamingBoth() {
        MigLayout.InvalidMigLayoutException e = assertThrows(MigLayout.InvalidMigLayoutException.class,
                () -> new MigLayout("A100-40GB", List.of(new Slot("3g.20gb", 0), new Slot("2g.10gb", 2))));
        assertEquals(List.of("2g.10gb at slot 2 overlaps 3g.20gb at slot 0 at memory slice 2"), e.reasons());
        assertTrue(e.getMessage().startsWith("invalid MIG layout for A100-40GB: "), e.getMessage());
    }

    @Test
    void anUnknownProfileOrModelGetsAClearError() {
        MigLayout.InvalidMigLayoutException e = assertThrows(MigLayout.InvalidMigLayoutException.class,
                () -> new MigLayout("H100-80GB", List.of(new Slot("1g.5gb", 0))));
        assertEquals(List.of("unknown MIG profile '1g.5gb' for H100-80GB; use one of [1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb]"),
                e.reasons());
        IllegalArgumentException m = assertThrows(IllegalArgumentException.class, () -> MigGeometry.of("T4"));
        assertEquals("GPU model 'T4' has no MIG geometry; MIG models: [A100-40GB, A100-80GB, H100-80GB, H100-94GB, H200-141GB, B200-180GB]", m.getMessage());
    }

    @Test
    void everyModelHasSixProfilesOnSevenComputeAndEightMemorySlices() {
        for (String model : List.of("A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB")) {
            List<MigProfile> profiles = MigGeometry.of(model).profiles();
            assertEquals(6, profiles.size(), model);
            for (MigProfile p : profiles) {
                int lastStart = p.starts().get(p.starts().size() - 1);
                assertTrue(lastStart + p.memorySlices() <= MigGeometry.MEMORY_SLICES, model + " " + p);
                assertTrue(p.name().startsWith(p.computeSlices() + "g."), model + " " + p);
            }
            assertEquals(1.0, MigGeometry.of(model).profiles().get(5).gpuFraction(), 1e-9, model);
        }
    }
}
