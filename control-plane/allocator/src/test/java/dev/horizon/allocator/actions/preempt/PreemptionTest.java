package dev.horizon.allocator.actions.preempt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Value preemption frees GPUs a job may use under its rules, and preempts only the victims on the GPUs it takes. */
class PreemptionTest {
    private static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(1800, true, 120);
    private final Cluster cluster = new Cluster(List.of(new GpuNode("h100", "H100-80GB", 8, 81_559, "a"),
            new GpuNode("a100", "A100-80GB", 8, 81_920, "b")));

    private static RunningJob victim(Occupancy o, String id, int node, int first, int gpus) {
        Placement p = new Placement(List.of(new Placement.Slice(node, first, gpus)));
        o.occupy(p);
        return new RunningJob(id, "t", JobClass.TRAINING, 1, gpus, 0, NOW - 7200, NOW + 3600, RESUMABLE, p, false);
    }

    /** A heavy waiting job of the given width; its caller says where its GPUs may be. */
    private static PendingJob.Builder vip(int gpus) {
        return PendingJob.builder().id("vip").team("t").jobClass(JobClass.TRAINING).weight(8).gpus(gpus).arrivalSeconds(NOW)
                .estimatedRemainingSeconds(3600).contract(RESUMABLE);
    }

    @Test
    void aJobPinnedToAModelTakesGpusOnlyFromThatModelsNodes() {
        Occupancy o = new Occupancy(cluster);
        // the cheapest victim (newest) sits on the H100 node; the job accepts A100s only
        List<RunningJob> running = new ArrayList<>(List.of(victim(o, "on-a100", 1, 0, 8), victim(o, "on-h100", 0, 0, 8)));
        PendingJob a100 = vip(8).rules(PlacementRules.ANY.withGpuTypes(Set.of("A100-80GB"))).build();
        Decision d = new Decision();
        Placement p = Preemption.place(o, a100, 8, new VictimPool(running, NOW), d, Price.PLANNED);
        assertNotNull(p);
        assertEquals(1, p.slices().get(0).node());
        assertEquals(List.of("on-a100"), d.preemptions());
    }

    @Test
    void onlyTheVictimsOnTheGpusTheJobGetsArePreempted() {
        Occupancy o = new Occupancy(cluster);
        // cheapest first: small-0 (GPUs 0-1) then small-4 (GPUs 4-5); freeing both lets a 4-GPU block fit at 4-7, which small-0 is not on
        List<RunningJob> running = new ArrayList<>(List.of(victim(o, "small-0", 0, 0, 2), victim(o, "small-4", 0, 4, 2), victim(o, "busy", 1, 0, 8)));
        o.occupy(new Placement(List.of(new Placement.Slice(0, 2, 2))));
        PendingJob wide = vip(4).rules(PlacementRules.ANY.withGpuTypes(Set.of("H100-80GB"))).build();
        Decision d = new Decision();
        Placement p = Preemption.place(o, wide, 4, new VictimPool(running, NOW), d, Price.PLANNED);
        assertEquals(List.of(new Placement.Slice(0, 4, 4)), p.slices());
        assertEquals(List.of("small-4"), d.preemptions(), "small-0 holds none of GPUs 4-7: it keeps running");
        o.occupy(p);
        PendingJob none = vip(4).id("none").rules(PlacementRules.ANY.withGpuTypes(Set.of("H100-80GB"))).build();
        assertNull(Preemption.place(o, none, 4, new VictimPool(List.of(), NOW), d, Price.PLANNED));
    }

    @Test
    void aJobHoldingEveryShareOfItsGpuIsPreemptibleLikeAWholeGpuJobAndOneSharingItsGpuIsNot() {
        Occupancy o = new Occupancy(cluster);
        GpuShare half = GpuShare.timeSlice(500, 40_000);
        Placement bothHalves = new Placement(List.of(new Placement.Slice(0, 7, 1, half), new Placement.Slice(0, 7, 1, half)));
        o.occupy(bothHalves);
        List<RunningJob> running = List.of(victim(o, "seven", 0, 0, 7), victim(o, "a100-busy", 1, 0, 8).reweighted(9, false),
                new RunningJob("actors", "t", JobClass.BATCH_INFERENCE, 1, 2, 0, NOW - 7200, NOW + 3600, RESUMABLE, bothHalves, false));
        assertTrue(ValuePreemption.holdsWholeGpus(o, bothHalves));
        PendingJob wide = vip(8).build();
        Decision d = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(wide), Map.of(), null));
        assertEquals(Set.of("seven", "actors"), Set.copyOf(d.preemptions()), "the two halves of GPU 7 are one job's: taking it back frees the GPU");
        assertEquals(List.of(new Placement.Slice(0, 0, 8)), d.starts().get(0).placement().slices());

        Occupancy shared = new Occupancy(cluster);
        Placement oneHalf = new Placement(List.of(new Placement.Slice(0, 7, 1, half)));
        shared.occupy(oneHalf);
        shared.occupy(new Placement(List.of(new Placement.Slice(0, 7, 1, half))));
        assertFalse(ValuePreemption.holdsWholeGpus(shared, oneHalf), "another job's half stays on GPU 7: taking this one back frees no GPU");
    }

    /** A running gang of weight 1 on the given GPUs of each node, past its minimum runtime. */
    private static RunningJob gang(Occupancy o, String id, int[] nodes, int first, int perNode) {
        List<Placement.Slice> slices = new ArrayList<>();
        for (int n : nodes) slices.add(new Placement.Slice(n, first, perNode));
        Placement p = new Placement(slices);
        o.occupy(p);
        return new RunningJob(id, "t", JobClass.TRAINING, 1, perNode * nodes.length, 0, NOW - 7200, NOW + 3600, RESUMABLE, p, false);
    }

    @Test
    void aStarvingWideJobTakesSmallWorkOfItsWeightButNeverAJobThatNeedsAWholeNode() {
        // a 16-GPU job of weight 1 waiting two hours with half its GPUs idle
        PendingJob starving = PendingJob.builder().id("starving").team("t").jobClass(JobClass.TRAINING).weight(1).gpus(16).arrivalSeconds(NOW - 7200)
                .estimatedRemainingSeconds(3600).contract(RESUMABLE).rules(new PlacementRules(Set.of(), 8, true, PlacementRules.Topology.ANY)).build();
        // nodes 0-1 hold a 16-GPU gang of its weight, nodes 2-3 four GPUs each of small work of its weight
        Occupancy o = new Occupancy(Cluster.homogeneous(32, 8, "H100-80GB", 81_559));
        List<RunningJob> running = new ArrayList<>(List.of(gang(o, "peer", new int[] {0, 1}, 0, 8), gang(o, "small", new int[] {2}, 0, 4),
                gang(o, "small-3", new int[] {3}, 0, 4)));
        Decision d = new Decision();
        assertNotNull(Preemption.place(o, starving, 16, new VictimPool(running, NOW), d, Price.PLANNED));
        assertEquals(List.of("small", "small-3"), d.preemptions().stream().sorted().toList(), "scattered small work of its weight moves");

        // the same gang, an 8-GPU job of its weight on node 2, small work on node 3, work it may not take on nodes 4 and 5
        Occupancy stuck = new Occupancy(Cluster.homogeneous(48, 8, "H100-80GB", 81_559));
        List<RunningJob> wideOnly = new ArrayList<>(List.of(gang(stuck, "peer", new int[] {0, 1}, 0, 8), gang(stuck, "whole-node", new int[] {2}, 0, 8),
                gang(stuck, "small", new int[] {3}, 0, 4)));
        stuck.occupy(new Placement(List.of(new Placement.Slice(4, 0, 4))));
        stuck.occupy(new Placement(List.of(new Placement.Slice(5, 0, 8))));
        Decision none = new Decision();
        assertNull(Preemption.place(stuck, starving, 16, new VictimPool(wideOnly, NOW), none, Price.PLANNED));
        assertEquals(List.of(), none.preemptions(), "a gang as wide as itself, or a job holding a whole node, of its weight keeps its GPUs");
    }

    @Test
    void aShortJobDoesNotEvictALongRunningWideJobAndALongValuableOneStillDoes() {
        // issue 34: an 8-GPU job of weight 1, two hours in and an hour left, fills the H100 node; the A100 node is busy with
        // work that outranks everyone. The plan starts the waiters when the wide job ends, in an hour.
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> running = List.of(victim(o, "wide", 0, 0, 8), victim(o, "a100-busy", 1, 0, 8).reweighted(9, false));
        PendingJob quick = vip(1).id("quick").estimatedRemainingSeconds(90).build();
        Decision d = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(quick), Map.of(), null));
        assertEquals(List.of(), d.preemptions(), "90 s of weight-8 work on 1 GPU is worth less than the wide job's checkpoint and restart");
        assertTrue(d.waitReasons().get("quick").contains("preempting costs more than it gains: starting now does 2 min of its work sooner, worth "
                + "0.2 weighted GPU-h; the cheapest victims would lose 0.73 (since their checkpoint 0.27, restart 0.27, waiting for GPUs again 0.2)"),
                d.waitReasons().get("quick"));

        PendingJob valuable = vip(8).id("valuable").estimatedRemainingSeconds(3 * 3600).build();
        Decision taken = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(valuable), Map.of(), null));
        assertEquals(List.of("wide"), taken.preemptions(), "an hour sooner for 8 GPUs of weight 8 outweighs the wide job's hour of waiting");
        assertEquals("valuable", taken.starts().get(0).jobId());
        String told = taken.preemptionReasons().get("wide");
        assertTrue(told != null && told.startsWith("for valuable (8 GPUs, weight 8.0): starting it now does 60 min of its work sooner, worth 64.0 weighted GPU-h, "
                + "more than the 1 job(s) taken off lose"), "the wide job is told who took its GPUs and what the price weighed: " + told);
    }

    @Test
    void theGainWeighsTheRunAJobIsExpectedToHaveNotItsMedian() {
        // the wide job (weight 1, 8 GPUs, an hour left) would lose 0.8 weighted GPU-h; the plan starts the waiter when it ends
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> running = List.of(victim(o, "wide", 0, 0, 8), victim(o, "a100-busy", 1, 0, 8).reweighted(9, false));
        PendingJob typical = vip(8).id("typical").weight(2).estimatedRemainingSeconds(120).build();
        Decision d = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(typical), Map.of(), null));
        assertEquals(List.of(), d.preemptions(), "2 min sooner on 8 GPUs of weight 2 (0.53 weighted GPU-h) does not pay");
        // runs like it take 2 min at the median but 3 h on average: starting it an hour sooner is worth 32 weighted GPU-h
        PendingJob heavyTailed = vip(8).id("heavy-tailed").weight(2).estimatedRemainingSeconds(120).expectedRemainingSeconds(3 * 3600).build();
        Decision taken = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(heavyTailed), Map.of(), null));
        assertEquals(List.of("wide"), taken.preemptions());
        assertTrue(taken.preemptionReasons().get("wide").contains("starting it now does 60 min of its work sooner, worth 16.0 weighted GPU-h"),
                taken.preemptionReasons().get("wide"));
    }

    @Test
    void theVictimsLoseTheirWorkSinceTheCheckpointARestartAndTheirWorkWhileTheyWait() {
        Occupancy o = new Occupancy(cluster);
        RunningJob resumable = victim(o, "resumable", 0, 0, 4); // weight 1, ran 2 h, an hour left, checkpoint 120 s
        RunningJob startsOver = new RunningJob("starts-over", "t", JobClass.QUANTIZATION, 2, 2, 0, NOW - 600, NOW + 60, new Contract(0, false, 0),
                new Placement(List.of(new Placement.Slice(0, 4, 2))), false);
        Price price = Price.of(vip(8).estimatedRemainingSeconds(7200).build(), 8, NOW + 1800, NOW, 900, 86_400);
        assertEquals(1800, price.advanceSeconds(), "it does 30 min of work sooner: its planned start is 30 min away");
        assertEquals(8 * 8 * 1800.0, price.gain());
        Price.Loss loss = price.lossOf(List.of(resumable, startsOver));
        assertEquals(4 * 120.0 + 2 * 2 * 600, loss.sinceCheckpoint(), "a job that cannot resume loses all it ran");
        assertEquals(4 * 120.0 + 2 * 2 * 60, loss.restart(), "a restart costs its checkpoint, at least a minute");
        assertEquals(4 * 1800.0 + 2 * 2 * 60, loss.waiting(), "each waits the advance, no longer than it had left to run");
        assertEquals(900, Price.of(vip(8).estimatedRemainingSeconds(7200).build(), 8, NOW, NOW, 900, 86_400).advanceSeconds(),
                "a job the plan placed now but could not start gains at least a step: the plan knows starts only to a step");
    }

    @Test
    void aFailedSearchIsSkippedOnlyForJobsThatGainNoMoreThanTheLossItTurnedDown() {
        // both ask the same (8 GPUs, weight unit 2, 200 s of work sooner); the wide job would lose 0.53 + 8 x 200 s = 0.98
        // weighted GPU-h: worth 0.89 to the lighter job, 1.29 to the heavier, which comes second in the order given
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> running = List.of(victim(o, "wide", 0, 0, 8), victim(o, "a100-busy", 1, 0, 8).reweighted(9, false));
        PendingJob light = vip(8).id("light").weight(2).estimatedRemainingSeconds(200).build();
        PendingJob heavy = vip(8).id("heavy").weight(2.9).estimatedRemainingSeconds(200).build();
        for (boolean skipRepeats : new boolean[] {true, false}) {
            dev.horizon.allocator.actions.Session session = dev.horizon.allocator.actions.Session.open(
                    new PlanningContext(NOW, 900, 16, cluster, o.copy(), running, List.of(light, heavy), Map.of(), null));
            assertEquals(List.of("light"), ValuePreemption.run(session, List.of(light, heavy), skipRepeats).stream().map(PendingJob::id).toList());
            assertEquals(List.of("wide"), session.decision().preemptions(), "skipping repeats: " + skipRepeats);
            assertTrue(session.decision().waitReasons().get("light").contains("worth 0.89 weighted GPU-h; the cheapest victims would lose 0.98"),
                    session.decision().waitReasons().get("light"));
        }
    }

    @Test
    void workThatCannotResumeIsTakenPastItsMinimumRuntimeWhereThePricePaysAndNeverInsideIt() {
        // issue 34: Slurm-like requeues work that cannot resume, KAI and Kueue preempt it; priced (it loses all it ran), Horizon may too
        Occupancy o = new Occupancy(cluster);
        Placement h100 = new Placement(List.of(new Placement.Slice(0, 0, 8)));
        o.occupy(h100);
        RunningJob quantize = new RunningJob("quantize", "t", JobClass.QUANTIZATION, 1, 8, 0, NOW - 600, NOW + 3600, new Contract(0, false, 0), h100, false);
        RunningJob busy = victim(o, "a100-busy", 1, 0, 8).reweighted(9, false);
        PendingJob valuable = vip(8).id("valuable").estimatedRemainingSeconds(3 * 3600).build();
        Decision taken = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, List.of(quantize, busy), List.of(valuable), Map.of(), null));
        assertEquals(List.of("quantize"), taken.preemptions(), "an hour sooner for 8 GPUs of weight 8 outweighs 10 minutes lost and an hour's wait of weight 1");
        assertTrue(taken.preemptionReasons().get("quantize").contains("since their checkpoint 1.33"), "it loses all it ran: " + taken.preemptionReasons());

        RunningJob young = new RunningJob("quantize", "t", JobClass.QUANTIZATION, 1, 8, 0, NOW - 600, NOW + 3600, new Contract(3600, false, 0), h100, false);
        Decision kept = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, List.of(young, busy), List.of(valuable), Map.of(), null));
        assertEquals(List.of(), kept.preemptions(), "inside its minimum runtime it is never preempted");
    }
}
