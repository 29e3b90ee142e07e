package dev.horizon.fractional.mig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.mig.MigLayout;
import dev.horizon.api.mig.MigLayout.Slot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReconfigurationPlannerTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final MigLayout WHOLE = MigLayout.unpartitioned("H100-80GB");
    private static final MigLayout SEVEN = new MigLayout("H100-80GB", List.of(new Slot("1g.10gb", 0), new Slot("1g.10gb", 1),
            new Slot("1g.10gb", 2), new Slot("1g.10gb", 3), new Slot("1g.10gb", 4), new Slot("1g.10gb", 5), new Slot("1g.10gb", 6)));
    private static final MigLayout HALVES = new MigLayout("H100-80GB", List.of(new Slot("3g.40gb", 0), new Slot("3g.40gb", 4)));

    private static MigPolicy policy(MigPolicy.Layout layout, int maxConcurrent) {
        return new MigPolicy("inference", Set.of("H100-80GB"), Set.of("1g.10gb", "3g.40gb"), layout, Duration.ofMinutes(5), maxConcurrent);
    }

    @Test
    void neverPlansAReconfigurationOnAGpuWithRunningWork() {
        Random rng = new Random(11);
        MigLayout[] layouts = {WHOLE, SEVEN, HALVES};
        for (int round = 0; round < 500; round++) {
            List<GpuState> gpus = new ArrayList<>();
            Map<String, MigLayout> wanted = new LinkedHashMap<>();
            for (int i = 0; i < 8; i++) {
                gpus.add(new GpuState("g" + i, "H100-80GB", layouts[rng.nextInt(3)], rng.nextInt(3), rng.nextInt(5) == 0));
                wanted.put("g" + i, layouts[rng.nextInt(3)]);
            }
            ReconfigurationPlanner.Plan plan = ReconfigurationPlanner.plan(policy(MigPolicy.Layout.DYNAMIC, 1 + rng.nextInt(4)), gpus, wanted, NOW);
            for (ReconfigurationPlanner.Reconfiguration r : plan.started()) {
                GpuState g = gpus.stream().filter(x -> x.id().equals(r.gpuId())).findFirst().orElseThrow();
                assertTrue(g.idle(), "reconfigured a busy GPU: " + g);
            }
        }
    }

    @Test
    void busyGpusWaitAndAtMostNReconfigureAtOnceEachAfterTheDrainTime() {
        List<GpuState> gpus = List.of(new GpuState("busy", "H100-80GB", WHOLE, 2, false), new GpuState("a", "H100-80GB", WHOLE, 0, false),
                new GpuState("b", "H100-80GB", WHOLE, 0, false), new GpuState("c", "H100-80GB", WHOLE, 0, true));
        Map<String, MigLayout> wanted = new LinkedHashMap<>();
        for (String id : List.of("busy", "a", "b")) wanted.put(id, SEVEN);
        ReconfigurationPlanner.Plan plan = ReconfigurationPlanner.plan(policy(MigPolicy.Layout.DYNAMIC, 2), gpus, wanted, NOW);
        assertEquals(1, plan.started().size(), plan.toString());
        assertEquals("a", plan.started().get(0).gpuId());
        assertEquals(NOW.plus(Duration.ofMinutes(5)), plan.started().get(0).readyAt());
        assertEquals("2 task(s) still run on it; it must drain first", plan.deferred().get(0).reason());
        assertEquals("at most 2 GPU(s) may reconfigure at once in pool 'inference'", plan.deferred().get(1).reason());
    }

    @Test
    void aFixedLayoutOrADisallowedProfileIsNeverChanged() {
        List<GpuState> gpus = List.of(new GpuState("a", "H100-80GB", WHOLE, 0, false));
        ReconfigurationPlanner.Plan fixed = ReconfigurationPlanner.plan(policy(MigPolicy.Layout.FIXED, 4), gpus, Map.of("a", SEVEN), NOW);
        assertEquals(List.of(), fixed.started());
        assertEquals("pool 'inference' has a fixed MIG layout", fixed.deferred().get(0).reason());
        MigLayout quarters = new MigLayout("H100-80GB", List.of(new Slot("2g.20gb", 0)));
        ReconfigurationPlanner.Plan notAllowed = ReconfigurationPlanner.plan(policy(MigPolicy.Layout.DYNAMIC, 4), gpus, Map.of("a", quarters), NOW);
        assertEquals("profile 2g.20gb is not allowed in pool 'inference'", notAllowed.deferred().get(0).reason());
    }

    @Test
    void aPolicyNamingAnUnknownProfileOrAModelWithoutMigIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MigPolicy("p", Set.of("H100-80GB", "T4"),
                Set.of("1g.5gb"), MigPolicy.Layout.DYNAMIC, Duration.ZERO, 1));
        assertTrue(e.getMessage().contains("model 'T4' cannot be partitioned"), e.getMessage());
        assertTrue(e.getMessage().contains("profile '1g.5gb' is not offered by any partitionable model"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReconfigurationPlanner.plan(policy(MigPolicy.Layout.DYNAMIC, 1), List.of(),
                Map.of("ghost", SEVEN), NOW));
    }
}
