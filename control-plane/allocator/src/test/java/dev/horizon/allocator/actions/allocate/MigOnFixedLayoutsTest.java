package dev.horizon.allocator.actions.allocate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.MigPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * MIG work that no node may re-partition a GPU for runs only on instances of the layouts as they are, so the plan does
 * not count it on whole GPUs: a waiting MIG job used to take a whole GPU of the plan's current step at every decision,
 * and whole-GPU work ranked below it waited beside that idle GPU.
 */
class MigOnFixedLayoutsTest {
    private static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(600, true, 30);
    private final Cluster cluster = new Cluster(List.of(new GpuNode("a100", "A100-80GB", 8, 81_920, "a")));

    /**
     * GPUs 0-5 run protected work for two more hours; GPU 7 is two 3g.40gb halves, both busy for an hour; GPU 6 is free.
     * A quantization asks for a 3g.40gb half (weight 8), a one-GPU job for a whole GPU (weight 1).
     */
    private Decision decide(MigPolicy policy) {
        Occupancy o = new Occupancy(cluster);
        if (policy != null) o.setMigPolicy(0, policy);
        o.setMigLayout(0, 7, new MigLayout("A100-80GB", List.of(new MigLayout.Slot("3g.40gb", 0), new MigLayout.Slot("3g.40gb", 4))));
        Placement six = new Placement(List.of(new Placement.Slice(0, 0, 6)));
        Placement halfA = new Placement(List.of(new Placement.Slice(0, 7, 1, GpuShare.mig("3g.40gb", 0))));
        Placement halfB = new Placement(List.of(new Placement.Slice(0, 7, 1, GpuShare.mig("3g.40gb", 4))));
        List<RunningJob> running = List.of(
                new RunningJob("six", "t", JobClass.TRAINING, 4, 6, 0, NOW - 600, NOW + 7200, RESUMABLE, six, false),
                new RunningJob("half-a", "t", JobClass.QUANTIZATION, 1, 1, 0, NOW - 600, NOW + 3600, RESUMABLE, halfA, false),
                new RunningJob("half-b", "t", JobClass.QUANTIZATION, 1, 1, 0, NOW - 600, NOW + 3600, RESUMABLE, halfB, false));
        for (RunningJob r : running) o.occupy(r.placement());
        PendingJob quantization = PendingJob.builder().id("quantization").team("t").jobClass(JobClass.QUANTIZATION).weight(8).gpus(1)
                .arrivalSeconds(NOW - 120).estimatedRemainingSeconds(1800).contract(RESUMABLE).slice(SliceRequest.mig("3g.40gb")).build();
        PendingJob whole = PendingJob.builder().id("whole").team("t").jobClass(JobClass.TRAINING).weight(1).gpus(1)
                .arrivalSeconds(NOW - 60).estimatedRemainingSeconds(1800).contract(RESUMABLE).build();
        return new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(quantization, whole), Map.of()));
    }

    @Test
    void withoutAPolicyThatMayRepartitionTheFreeGpuGoesToWholeGpuWorkWhileTheMigJobWaitsForAnInstance() {
        Decision d = decide(null);
        assertEquals(List.of("whole"), d.starts().stream().map(Decision.Start::jobId).toList(), "GPU 6 idles otherwise: " + d.waitReasons());
        assertEquals(List.of(0, 6), List.of(d.starts().get(0).placement().slices().get(0).node(), d.starts().get(0).placement().slices().get(0).firstGpu()));
        assertFalse(d.starts().get(0).fill(), "the plan's own start, protected, not fill on a GPU the plan kept for the MIG job");
        String reason = d.waitReasons().get("quantization");
        assertTrue(reason.contains("3g.40gb") && reason.contains("no idle GPU may be re-partitioned"), reason);
        assertNull(d.plannedStarts().get("quantization"), "no whole GPU's start is its start");
        assertTrue(d.reconfigurations().isEmpty());
    }

    @Test
    void aFixedPolicyIsTheSame() {
        Decision d = decide(new MigPolicy("a100", Set.of("A100-80GB"), Set.of("3g.40gb"), MigPolicy.Layout.FIXED, Duration.ZERO, 1));
        assertEquals(List.of("whole"), d.starts().stream().map(Decision.Start::jobId).toList(), d.waitReasons().toString());
    }

    @Test
    void underADynamicPolicyTheMigJobMayStillHaveTheFreeGpuRepartitioned() {
        Decision d = decide(new MigPolicy("a100", Set.of("A100-80GB"), Set.of("3g.40gb"), MigPolicy.Layout.DYNAMIC, Duration.ofMinutes(5), 1));
        assertEquals(1, d.reconfigurations().size(), "the higher-value MIG job is planned on GPU 6: " + d.waitReasons());
        assertEquals(6, d.reconfigurations().get(0).gpu());
        assertTrue(d.starts().isEmpty(), d.waitReasons().toString());
    }
}
