package dev.horizon.allocator.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.MigPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlicePlacementTest {
    static final long NOW = 36_000;
    private static final long H100_MIB = 81_559;
    private final Cluster cluster = Cluster.homogeneous(16, 8, "H100-80GB", H100_MIB);
    private final Contract contract = new Contract(0, true, 60);
    private final MigPolicy dynamic = new MigPolicy("pool", Set.of("H100-80GB"), Set.of("1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"),
            MigPolicy.Layout.DYNAMIC, Duration.ofMinutes(5), 2);

    private PendingJob pending(String id, double weight, int replicas, SliceRequest slice) {
        return PendingJob.builder().id(id).team("t").jobClass(JobClass.BATCH_INFERENCE).weight(weight).gpus(replicas).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(3600).contract(contract).slice(slice).build();
    }

    private Decision decide(Occupancy o, List<RunningJob> running, List<PendingJob> pending) {
        return new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, pending, Map.of()));
    }

    private static Placement.Slice only(Decision d, String job) {
        return d.starts().stream().filter(s -> s.jobId().equals(job)).findFirst().orElseThrow(() -> new AssertionError(job + " did not start: "
                + d.waitReasons().get(job))).placement().slices().get(0);
    }

    @Test
    void twoThreeGJobsShareOneH100AfterOneReconfiguration() {
        Occupancy o = new Occupancy(cluster);
        for (int n = 0; n < 2; n++) o.setMigPolicy(n, dynamic);
        List<PendingJob> jobs = List.of(pending("a", 2, 1, SliceRequest.mig("3g.40gb")), pending("b", 1, 1, SliceRequest.mig("3g.40gb")));
        Decision first = decide(o, List.of(), jobs);
        assertTrue(first.starts().isEmpty(), "no GPU has 3g.40gb instances yet");
        assertEquals(1, first.reconfigurations().size(), "one GPU is re-partitioned for both jobs: " + first.reconfigurations());
        Decision.Reconfigure r = first.reconfigurations().get(0);
        assertEquals(List.of(new MigLayout.Slot("3g.40gb", 0), new MigLayout.Slot("3g.40gb", 4)), r.layout().slots());
        assertTrue(first.waitReasons().get("a").contains("re-partitioned"), first.waitReasons().get("a"));

        Occupancy after = new Occupancy(cluster);
        for (int n = 0; n < 2; n++) after.setMigPolicy(n, dynamic);
        after.setMigLayout(r.node(), r.gpu(), r.layout());
        Decision second = decide(after, List.of(), jobs);
        Placement.Slice a = only(second, "a");
        Placement.Slice b = only(second, "b");
        assertEquals(List.of(a.node(), a.firstGpu()), List.of(b.node(), b.firstGpu()), "both on one GPU");
        assertNotEquals(a.share().migStart(), b.share().migStart());
        assertTrue(second.reconfigurations().isEmpty());
        assertEquals(8 * 2 - 1, after.totalFree(), "the partitioned GPU is the only one whole-GPU work loses");
    }

    @Test
    void aHalfGpuShareAndAnotherShareOneGpuWithinComputeAndMemory() {
        Occupancy o = new Occupancy(cluster);
        Decision d = decide(o, List.of(), List.of(pending("half", 3, 1, SliceRequest.timeSlice(500, 30_000)),
                pending("other", 2, 1, SliceRequest.timeSlice(400, 30_000)),
                pending("too-much-memory", 1, 1, SliceRequest.timeSlice(100, 40_000))));
        Placement.Slice half = only(d, "half");
        Placement.Slice other = only(d, "other");
        Placement.Slice third = only(d, "too-much-memory");
        assertEquals(List.of(half.node(), half.firstGpu()), List.of(other.node(), other.firstGpu()), "0.5 + 0.4 share one GPU");
        assertNotEquals(List.of(half.node(), half.firstGpu()), List.of(third.node(), third.firstGpu()), "60 + 40 GB is more than 80 GB");
        assertEquals(16 - 2, o.totalFree(), "two GPUs hold the three shares; whole-GPU work keeps the rest");
        assertEquals(0.5, new Placement(List.of(half)).gpuFraction(), 1e-9);
    }

    @Test
    void aShareNeverPushesAGpuOverItsComputeOrMemory() {
        Occupancy o = new Occupancy(cluster);
        o.occupy(new Placement(List.of(new Placement.Slice(0, 0, 1, GpuShare.timeSlice(700, 10_000)))));
        assertFalse(o.canHold(0, 0, GpuShare.timeSlice(400, 10_000)), "700 + 400 milli");
        assertFalse(o.canHold(0, 0, GpuShare.timeSlice(100, 75_000)), "memory");
        assertTrue(o.canHold(0, 0, GpuShare.timeSlice(300, 70_000)));
        assertThrows(IllegalStateException.class, () -> o.occupy(new Placement(List.of(new Placement.Slice(0, 0, 1)))), "a shared GPU is busy for whole work");
        o.release(new Placement(List.of(new Placement.Slice(0, 0, 1, GpuShare.timeSlice(700, 10_000)))));
        assertTrue(o.isWholeFree(0, 0), "the last share leaving frees the GPU");
    }

    @Test
    void wholeGpuWorkKeepsTheGpusSlicesDoNotNeed() {
        Occupancy o = new Occupancy(cluster);
        o.occupy(new Placement(List.of(new Placement.Slice(1, 7, 1, GpuShare.timeSlice(250, 8_000)))));
        PendingJob small = pending("small", 1, 1, SliceRequest.timeSlice(250, 8_000));
        PendingJob eight = PendingJob.builder().id("eight").team("t").jobClass(JobClass.TRAINING).weight(1).gpus(8).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(3600).contract(contract).build();
        Decision d = decide(o, List.of(), List.of(eight, small));
        assertEquals(List.of(1, 7), List.of(only(d, "small").node(), only(d, "small").firstGpu()), "packs beside the running share");
        assertEquals(0, only(d, "eight").node(), "the 8-GPU job still finds a whole node");
    }

    @Test
    void anUnknownProfileOrAbsentGpuTypeWaitsWithAClearReason() {
        Occupancy o = new Occupancy(cluster);
        Decision d = decide(o, List.of(), List.of(pending("a100-only", 1, 1, new SliceRequest("3g.40gb", 0, 0, Set.of("A100-40GB"))),
                pending("a100-profile", 1, 1, SliceRequest.mig("1g.5gb")),
                pending("huge", 1, 1, SliceRequest.timeSlice(100, 200_000))));
        assertTrue(d.starts().isEmpty());
        assertTrue(d.waitReasons().get("a100-only").contains("GPU type 'A100-40GB' is not in the cluster; it has [H100-80GB]"),
                d.waitReasons().get("a100-only"));
        assertTrue(d.waitReasons().get("a100-profile").contains("no GPU model in the cluster [H100-80GB] offers '1g.5gb'; use one of"),
                d.waitReasons().get("a100-profile"));
        assertTrue(d.waitReasons().get("huge").contains("perReplica.memoryMiB"), d.waitReasons().get("huge"));
    }

    @Test
    void aFixedLayoutIsNeverChanged() {
        Occupancy o = new Occupancy(cluster);
        o.setMigPolicy(0, new MigPolicy("pool", Set.of("H100-80GB"), Set.of("3g.40gb"), MigPolicy.Layout.FIXED, Duration.ZERO, 1));
        Decision d = decide(o, List.of(), List.of(pending("a", 1, 1, SliceRequest.mig("3g.40gb"))));
        assertTrue(d.reconfigurations().isEmpty());
        assertTrue(d.waitReasons().get("a").contains("no idle GPU may be re-partitioned"), d.waitReasons().get("a"));
    }

    @Test
    void quotaCountsAOneGSliceAsASeventhOfAGpu() {
        PendingJob oneG = pending("one-g", 1, 2, SliceRequest.mig("1g.10gb"));
        assertEquals(2.0 / 7, oneG.gpuFraction(), 1e-9, "compute slices of 7, not memory slices of 8");
        Placement p = new Placement(List.of(new Placement.Slice(0, 0, 1, GpuShare.mig("1g.10gb", 0))));
        RunningJob r = new RunningJob("r", "t", JobClass.BATCH_INFERENCE, 1, 1, NOW, NOW, NOW + 60, contract, p, false);
        assertEquals(1.0 / 7, r.gpuFraction(), 1e-9);
        assertEquals(0.25, pending("ts", 1, 1, SliceRequest.timeSlice(250, 1000)).gpuFraction(), 1e-9);
    }

    @Test
    void fairShareBudgetsSevenOneGSlicesInOneOwedGpu() {
        Occupancy o = new Occupancy(cluster);
        List<MigLayout.Slot> sevenOneG = new ArrayList<>();
        for (int s = 0; s < 7; s++) sevenOneG.add(new MigLayout.Slot("1g.10gb", s));
        for (int g = 0; g < 2; g++) o.setMigLayout(0, g, new MigLayout("H100-80GB", sevenOneG));
        List<PendingJob> eight = new ArrayList<>();
        for (int i = 0; i < 8; i++) eight.add(PendingJob.builder().id("a-" + i).team("a").jobClass(JobClass.BATCH_INFERENCE).weight(1).gpus(1)
                .arrivalSeconds(NOW - 60 + i).estimatedRemainingSeconds(3600).contract(contract).slice(SliceRequest.mig("1g.10gb")).build());
        dev.horizon.fairshare.BudgetTree tree = new dev.horizon.fairshare.BudgetTree(List.of(new dev.horizon.fairshare.BudgetTree.Budget("a", null, 0.5),
                new dev.horizon.fairshare.BudgetTree.Budget("b", null, 0.5)));
        dev.horizon.fairshare.FairShareView owedOneGpu = new dev.horizon.fairshare.FairShareView(tree, Map.of("a", 1.0, "b", 15.0), Map.of("a", 1.0, "b", 1.0));
        Decision d = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, List.of(), eight, Map.of(), owedOneGpu));
        assertEquals(7, d.starts().size(), "seven 1/7 slices fill the one GPU team a is owed: " + d.waitReasons());
        assertTrue(d.waitReasons().get("a-7").contains("fractional work does not run as fill"), d.waitReasons().get("a-7"));
    }

    /**
     * Property: over many random clusters (whole-GPU work, shares, partitioned and re-partitioning GPUs, mixed MIG and
     * share demand), every re-partitioning the plan asks for is on a GPU that held no work and was not re-partitioning.
     */
    @Test
    void noReconfigurationIsEverPlannedOnAGpuWithRunningWork() {
        Random rng = new Random(7);
        String[] profiles = {"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"};
        int planned = 0;
        for (int round = 0; round < 300; round++) {
            Occupancy o = new Occupancy(cluster);
            for (int n = 0; n < 2; n++) o.setMigPolicy(n, dynamic);
            List<RunningJob> running = new ArrayList<>();
            for (int n = 0; n < 2; n++) {
                for (int g = 0; g < 8; g++) {
                    String id = "r" + n + "-" + g;
                    Placement p = null;
                    switch (rng.nextInt(5)) {
                        case 0 -> p = new Placement(List.of(new Placement.Slice(n, g, 1)));
                        case 1 -> p = new Placement(List.of(new Placement.Slice(n, g, 1, GpuShare.timeSlice(100 + rng.nextInt(500), 1000))));
                        case 2 -> {
                            MigLayout layout = SlicePlacer.packed("H100-80GB", List.of(profiles[rng.nextInt(3)], profiles[rng.nextInt(3)]));
                            o.setMigLayout(n, g, layout);
                            if (rng.nextBoolean()) {
                                MigLayout.Slot s = layout.slots().get(0);
                                p = new Placement(List.of(new Placement.Slice(n, g, 1, GpuShare.mig(s.profile(), s.start()))));
                            }
                        }
                        case 3 -> o.markReconfiguring(n, g, null);
                        default -> { }
                    }
                    if (p == null) continue;
                    o.occupy(p);
                    running.add(new RunningJob(id, "t", JobClass.TRAINING, 1, 1, NOW - 100, NOW - 100, NOW + rng.nextInt(7200), contract, p, false));
                }
            }
            Occupancy before = o.copy();
            List<PendingJob> pending = new ArrayList<>();
            for (int k = 0; k < 1 + rng.nextInt(6); k++) {
                pending.add(rng.nextInt(3) == 0 ? pending("ts" + k, rng.nextInt(3), 1, SliceRequest.timeSlice(100 + rng.nextInt(900), 1000))
                        : pending("mig" + k, rng.nextInt(3), 1 + rng.nextInt(2), SliceRequest.mig(profiles[rng.nextInt(profiles.length)])));
            }
            Decision d = decide(o, running, pending);
            for (Decision.Reconfigure r : d.reconfigurations()) {
                planned++;
                String where = "round " + round + ": GPU " + r.gpu() + " of node " + r.node();
                assertTrue(before.sharesOn(r.node(), r.gpu()).isEmpty(), where + " holds shares");
                assertFalse(before.isReconfiguring(r.node(), r.gpu()), where + " is already re-partitioning");
                assertTrue(before.isWholeFree(r.node(), r.gpu()) || before.migLayout(r.node(), r.gpu()) != null, where + " holds whole-GPU work");
                for (RunningJob job : running) {
                    for (Placement.Slice s : job.placement().slices()) {
                        assertFalse(s.node() == r.node() && s.firstGpu() == r.gpu(), where + " runs " + job.id());
                    }
                }
            }
        }
        assertTrue(planned > 50, "the random states exercise re-partitioning (" + planned + " planned)");
    }
}
