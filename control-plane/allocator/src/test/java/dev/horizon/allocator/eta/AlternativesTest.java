package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AlternativesTest {
    private static final long NOW = 36_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);
    private static final Contract NO_MINIMUM = new Contract(0, true, 0);
    private static final NodeState H100 = NodeState.ready(new GpuNode("n0", "H100-80GB", 8, 81_559, "a"));
    private static final NodeState A100 = NodeState.ready(new GpuNode("n1", "A100-80GB", 8, 81_920, "b"));

    private static ActiveJob job(String id, int gpus, int minGpus, Set<String> types, ActiveJob.Running run) {
        return new ActiveJob(id, "t", JobClass.TRAINING, 1, gpus, minGpus, NOW - 60, 3600L, TRAINING, null,
                PlacementRules.ANY.withGpuTypes(types), null, run);
    }

    private static ActiveJob.Running onNode(int node, int first, int gpus) {
        return new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(node, first, gpus))), false);
    }

    private static List<Alternatives.Alternative> of(ClusterMoment m, String jobId) {
        Decision d = new HorizonPolicy().decide(ContextBuilder.build(m));
        return Alternatives.of(m, d, HorizonPolicy::new, jobId);
    }

    private static ClusterMoment moment(List<NodeState> nodes, ActiveJob... jobs) {
        return new ClusterMoment(NOW, 900, 16, nodes, List.of(jobs), null, List.of(), new DurationEstimator());
    }

    @Test
    void aJobWaitingForABusyModelIsOfferedTheIdleOneAndStartsNowThere() {
        ClusterMoment m = moment(List.of(H100, A100), job("r", 8, 8, Set.of("H100-80GB"), onNode(0, 0, 8)), job("w", 8, 8, Set.of("H100-80GB"), null));
        List<Alternatives.Alternative> alts = of(m, "w");
        assertEquals(1, alts.size(), "only the model change helps: " + alts);
        assertEquals("perReplica.gpuTypes", alts.get(0).field());
        assertEquals(NOW, alts.get(0).plannedStartAt(), "the A100 node is idle: " + alts);
        assertTrue(alts.get(0).change().contains("[A100-80GB]") && alts.get(0).change().contains("[H100-80GB]"), alts.get(0).change());
    }

    @Test
    void anElasticJobIsOfferedWholeReplicaWidthsDownToItsMinimum() {
        ActiveJob w = new ActiveJob("w", "t", JobClass.TRAINING, 1, 8, 2, NOW - 60, 3600L, NO_MINIMUM, null, new PlacementRules(Set.of(), 2, true, null), null, null);
        List<Alternatives.Candidate> widths = Alternatives.candidates(moment(List.of(H100), w), w);
        assertEquals(List.of("ask for 4 GPUs instead of 8", "ask for 2 GPUs instead of 8"), widths.stream().map(Alternatives.Candidate::change).toList(),
                "halfway in whole 2-GPU replicas, then its minimum; no model change (it accepts any)");
        assertEquals(List.of(4, 2), widths.stream().map(c -> c.job().gpus()).toList());
        ActiveJob rigid = new ActiveJob("g", "t", JobClass.TRAINING, 1, 8, 8, NOW, 3600L, TRAINING, null, null, null, null);
        assertTrue(Alternatives.candidates(moment(List.of(H100), rigid), rigid).stream().noneMatch(c -> c.field().equals("gpus")), "its width is all it allows");
    }

    @Test
    void anElasticJobThePlanStartsNarrowNowIsOfferedNothing() {
        // six of eight GPUs busy for an hour: the plan starts the 8-GPU job (min 2) now at the width that fits
        ClusterMoment m = moment(List.of(H100), job("r", 6, 6, Set.of(), onNode(0, 0, 6)), job("w", 8, 2, Set.of(), null));
        Decision d = new HorizonPolicy().decide(ContextBuilder.build(m));
        assertTrue(d.starts().stream().anyMatch(s -> s.jobId().equals("w")), "started now: " + d.starts());
        assertTrue(Alternatives.of(m, d, HorizonPolicy::new, "w").isEmpty());
    }

    @Test
    void changesAreSoonestFirstAndAtMostThree() {
        // a share on a busy H100 could also go to the A100 node, or take a MIG profile; its contract's minimum can halve
        SliceRequest share = new SliceRequest(null, 500, 20_000, Set.of("H100-80GB"));
        ActiveJob busy = new ActiveJob("r", "t", JobClass.TRAINING, 1, 8, 8, NOW - 700, 3600L, TRAINING, null, PlacementRules.ANY.withGpuTypes(Set.of("H100-80GB")),
                null, onNode(0, 0, 8));
        ActiveJob w = new ActiveJob("w", "t", JobClass.TRAINING, 1, 4, 1, NOW - 60, 3600L, TRAINING, share, null, null, null);
        ClusterMoment m = moment(List.of(H100, A100), busy, w);
        List<Alternatives.Alternative> alts = of(m, "w");
        assertTrue(alts.size() <= Alternatives.MAX && !alts.isEmpty(), alts.toString());
        for (int i = 1; i < alts.size(); i++) assertTrue(alts.get(i - 1).plannedStartAt() <= alts.get(i).plannedStartAt(), alts.toString());
        assertTrue(alts.stream().anyMatch(a -> a.field().equals("perReplica.gpuTypes")), alts.toString());
    }

    @Test
    void candidatesCoverEveryKindOfChangeTheJobAllows() {
        SliceRequest share = new SliceRequest(null, 250, 9_000, Set.of("H100-80GB"));
        ActiveJob w = new ActiveJob("w", "t", JobClass.TRAINING, 1, 4, 2, NOW - 60, 3600L, new Contract(3600, true, 60), share, null, null, null);
        List<String> fields = Alternatives.candidates(moment(List.of(H100, A100), w), w).stream().map(Alternatives.Candidate::field).toList();
        assertEquals(List.of("gpus", "gpus", "perReplica.gpuTypes", "contract.minRuntimeSeconds", "perReplica.migProfile"), fields, "3 and 2 replicas, then ...");
        Alternatives.Candidate mig = Alternatives.candidates(moment(List.of(H100, A100), w), w).get(4);
        assertEquals("2g.20gb", mig.job().slice().migProfile(), "the smallest profile with 9,000 MiB and a quarter GPU's compute (1g.10gb has 1/7): " + mig.change());
        ActiveJob migJob = new ActiveJob("m", "t", JobClass.TRAINING, 1, 1, 1, NOW, 3600L, NO_MINIMUM, SliceRequest.mig("3g.40gb"), null, null, null);
        Alternatives.Candidate asShare = Alternatives.candidates(moment(List.of(H100), migJob), migJob).get(0);
        assertEquals("perReplica.gpuMilli", asShare.field());
        assertNotNull(asShare.job().slice());
        assertEquals(429, asShare.job().slice().milli(), "3 of 7 compute slices: " + asShare.change());
    }

    @Test
    void planningBandsAndAlternativesLeaveTheMomentAsItWas() {
        // the service hands the plan's moment to other threads without copying it: nothing may change it
        ClusterMoment m = moment(List.of(H100, A100), job("r", 8, 8, Set.of("H100-80GB"), onNode(0, 0, 8)), job("w", 8, 8, Set.of("H100-80GB"), null),
                job("v", 4, 2, Set.of(), null));
        List<ActiveJob> jobs = List.copyOf(m.jobs());
        List<NodeState> nodes = List.copyOf(m.nodes());
        Decision d = new HorizonPolicy().decide(ContextBuilder.build(m));
        StartBands.of(m, d, new HorizonPolicy(), new ExpectedArrivals(jobs, 3600), Set.of("w", "v"), 4, 1);
        Alternatives.of(m, d, HorizonPolicy::new, "w");
        assertEquals(jobs, m.jobs());
        assertEquals(nodes, m.nodes());
        assertEquals(List.of(8), m.jobs().stream().filter(ActiveJob::isRunning).map(j -> j.running().placement().gpuCount()).toList());
    }

    /** A 1-GPU-per-replica job that ran before and waits again, its run measured at peak MiB of a GPU's memory. */
    private static ActiveJob measured(String id, long peak) {
        return new ActiveJob(id, "t", JobClass.TRAINING, 1, 1, 1, NOW - 60, 3600L, TRAINING, null, new PlacementRules(Set.of(), 1, true, null),
                new ActiveJob.RunHistory(1800, 1, 1, peak), null);
    }

    @Test
    void aMeasuredWholeGpuJobIsOfferedASliceWhereItsMemoryFitsAndStartsNowOnAGpuSharedAlready() {
        // seven H100s busy for an hour with whole-GPU work, the eighth holding a share of half its time and 40,000 MiB
        ActiveJob whole = job("r", 7, 7, Set.of(), onNode(0, 0, 7));
        ActiveJob shared = new ActiveJob("s", "t", JobClass.TRAINING, 1, 1, 1, NOW - 600, 3600L, TRAINING, new SliceRequest(null, 500, 40_000, Set.of()), null, null,
                new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 7, 1, GpuShare.timeSlice(500, 40_000)))), false));
        ClusterMoment m = moment(List.of(H100), whole, shared, measured("w", 9_000));
        List<Alternatives.Alternative> alts = of(m, "w");
        Alternatives.Alternative share = alts.stream().filter(a -> a.field().equals("perReplica.gpuMilli")).findFirst().orElse(null);
        assertNotNull(share, "a share beside the other one starts it sooner: " + alts);
        assertEquals(NOW, share.plannedStartAt(), "the shared GPU has half its time and 41,559 MiB left: " + alts);
        assertEquals("ask for gpuMilli 200 with memoryMiB 9900 instead of 1 whole GPU (its runs held at most 9000 MiB of a GPU)", share.change(),
                "its peak and a tenth more, and the tenths of a GPU that memory is of 81,559 MiB, rounded up");

        List<Alternatives.Candidate> slices = Alternatives.candidates(m, measured("w", 9_000)).stream().filter(c -> c.job().slice() != null).toList();
        assertEquals("1g.10gb", slices.get(0).job().slice().migProfile(), "the smallest H100 profile holding 9,900 MiB (an eighth of 81,559 is 10,194): " + slices.get(0).change());
        assertEquals(0, slices.get(0).job().rules().gpusPerReplica(), "a slice is a GPU's part, not whole GPUs");
        assertEquals(1, slices.get(0).job().gpus(), "one replica, one slice");
    }

    @Test
    void aWholeGpuJobNeverMeasuredOrTooLargeForAnySliceIsOfferedNone() {
        ActiveJob never = measured("w", 0);
        assertTrue(Alternatives.candidates(moment(List.of(H100), never), never).stream().noneMatch(c -> c.job().slice() != null), "its memory is unknown");
        ActiveJob large = measured("w", 80_000);
        assertTrue(Alternatives.candidates(moment(List.of(H100), large), large).stream().noneMatch(c -> c.job().slice() != null),
                "80,000 MiB and a tenth more is more than an H100 has");
        ActiveJob eightPerReplica = new ActiveJob("w", "t", JobClass.TRAINING, 1, 8, 8, NOW, 3600L, TRAINING, null, new PlacementRules(Set.of(), 8, true, null),
                new ActiveJob.RunHistory(1800, 1, 1, 9_000), null);
        assertTrue(Alternatives.candidates(moment(List.of(H100), eightPerReplica), eightPerReplica).stream().noneMatch(c -> c.job().slice() != null),
                "a replica of eight GPUs is not one GPU's part");
    }

    @Test
    void aJobThatStartsNowHasNoAlternatives() {
        ClusterMoment m = moment(List.of(H100, A100), job("w", 8, 8, Set.of("H100-80GB"), null));
        assertTrue(of(m, "w").isEmpty());
    }
}
