package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.moment.ServiceState;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.fractional.mig.MigPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StartBandsTest {
    private static final long NOW = 36_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);
    private final GpuNode node = new GpuNode("n0", "H100-80GB", 8, 81_559, "rack-a");

    private static ActiveJob job(String id, double priority, long arrival, ActiveJob.Running run) {
        return new ActiveJob(id, "t", JobClass.TRAINING, priority, 8, 8, arrival, null, TRAINING, null, null, null, run);
    }

    /** The team's training runs took 3,600 s give or take spread seconds (the class default is 4 h). */
    private static DurationEstimator runsOf(long spread) {
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.TRAINING, 3600 - spread + (2 * spread * i) / 39);
        return d;
    }

    private StartBands.Band band(DurationEstimator durations, ExpectedArrivals expected) {
        // the whole node runs a job for 10 min of its ~1 h; the same team's next job waits for it
        ActiveJob running = job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        ActiveJob waiting = job("w", 1, NOW - 60, null);
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), List.of(running, waiting), null, List.of(), durations);
        HorizonPolicy policy = new HorizonPolicy();
        Decision d = policy.decide(ContextBuilder.build(m));
        Map<String, StartBands.Band> bands = StartBands.of(m, d, policy, expected, Set.of("w"), StartBands.SAMPLES, 7);
        return bands.get("w");
    }

    @Test
    void aJobQueuedBehindARunningJobStartsAroundItsEnd() {
        StartBands.Band b = band(runsOf(200), ExpectedArrivals.NONE);
        assertNotNull(b.p50At());
        long end = NOW + 3000; // 3,600 s from its start 600 s ago
        assertTrue(Math.abs(b.p50At() - end) <= 250, "P50 " + (b.p50At() - NOW) + " s from now, the run ends in ~3000 s");
        assertTrue(b.p90At() >= b.p50At() && b.p90At() <= end + 250, "P90 " + (b.p90At() - NOW) + " s from now");
    }

    /**
     * The band of the first futures, handed over while the rest are played, is read from those futures alone: each of its
     * starts is one of the whole computation's, and it comes once, with the fewest futures a band is read from.
     */
    @Test
    void theFirstFuturesBandIsHandedOverOnceAndIsMadeOfTheComputationsOwnFirstStarts() {
        ActiveJob running = job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        List<ActiveJob> jobs = List.of(running, job("w1", 1, NOW - 60, null), job("w2", 1, NOW - 30, null));
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), jobs, null, List.of(), runsOf(1500));
        HorizonPolicy policy = new HorizonPolicy();
        Decision d = policy.decide(ContextBuilder.build(m));
        List<Map<String, StartBands.Band>> handed = new ArrayList<>();
        StartBands.Computed all = StartBands.computed(m, d, StartBands.Players.oneAtATime(policy), ExpectedArrivals.NONE, Set.of("w1", "w2"),
                StartBands.SAMPLES, 7, 0, handed::add);
        assertEquals(1, handed.size(), "handed over once");
        for (String id : List.of("w1", "w2")) {
            long[] first = handed.get(0).get(id).starts();
            assertEquals(StartBands.MIN_LEFT, first.length, id);
            List<Long> whole = new ArrayList<>(Arrays.stream(all.bands().get(id).starts()).boxed().toList());
            for (long t : first) assertTrue(whole.remove(t), id + ": a first future's start " + t + " is not among the computation's " + whole);
            assertNotNull(handed.get(0).get(id).projected(0.5), id);
        }
        List<Map<String, StartBands.Band>> none = new ArrayList<>();
        StartBands.computed(m, d, StartBands.Players.oneAtATime(policy), ExpectedArrivals.NONE, Set.of("w1"), StartBands.MIN_LEFT, 7, 0, none::add);
        assertEquals(List.of(), none, "no first band when there are no more futures than it is read from");
    }

    @Test
    void aWiderSpreadOfRunsWidensTheBand() {
        StartBands.Band tight = band(runsOf(100), ExpectedArrivals.NONE);
        StartBands.Band wide = band(runsOf(1500), ExpectedArrivals.NONE);
        long tightWidth = tight.at(0.9) - tight.at(0.1), wideWidth = wide.at(0.9) - wide.at(0.1);
        assertTrue(wideWidth > 3 * tightWidth, "P10..P90 width: tight " + tightWidth + " s, wide " + wideWidth + " s");
    }

    @Test
    void higherRankedWorkExpectedToArriveDelaysTheStart() {
        // an 8-GPU job of priority 10 has been arriving every 20 min: one is likely to take the node before the waiting job
        List<ActiveJob> recent = List.of(job("h1", 10, NOW - 3600, null), job("h2", 10, NOW - 2400, null), job("h3", 10, NOW - 1200, null));
        StartBands.Band calm = band(runsOf(200), ExpectedArrivals.NONE);
        StartBands.Band busy = band(runsOf(200), new ExpectedArrivals(recent, 3600));
        assertTrue(busy.p90At() == null || busy.p90At() > calm.p90At() + 1800,
                "P90 without arrivals " + (calm.p90At() - NOW) + " s, with them " + (busy.p90At() == null ? "beyond the horizon" : busy.p90At() - NOW + " s"));
    }

    /**
     * A one-GPU sweep of a team whose training runs took 75 h: one sibling runs (started 600 s ago), one waits for the
     * only GPU, and six siblings that arrived with them ran about 900 s each, ending at siblingsEnd + 10 i.
     */
    private StartBands.Band sweepBand(long siblingsEnd) {
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.TRAINING, 270_000 - 2000 + 100 * i);
        for (int i = 0; i < 6; i++) d.observe(new DurationEstimator.Finished("t", JobClass.TRAINING, 1, NOW - 1200 + 10 * i, siblingsEnd + 10 * i, 850 + 20 * i));
        GpuNode one = new GpuNode("n0", "H100-80GB", 1, 81_559, "rack-a");
        ActiveJob running = new ActiveJob("r", "t", JobClass.TRAINING, 1, 1, 1, NOW - 1000, null, TRAINING, null, null, null,
                new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 1))), false));
        ActiveJob waiting = new ActiveJob("w", "t", JobClass.TRAINING, 1, 1, 1, NOW - 950, null, TRAINING, null, null, null, null);
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(one)), List.of(running, waiting), null, List.of(), d);
        HorizonPolicy policy = new HorizonPolicy();
        return StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, ExpectedArrivals.NONE, Set.of("w"), StartBands.SAMPLES, 7).get("w");
    }

    @Test
    void aBurstsFinishedJobsSpeakForItsRunningAndWaitingOnes() {
        StartBands.Band b = sweepBand(NOW - 300);
        assertTrue(b.p50At() != null && b.p50At() <= NOW + 1800,
                "P50 " + (b.p50At() == null ? "beyond the horizon" : b.p50At() - NOW + " s from now") + "; the sweep's jobs ran ~900 s, the running one has done 600 s");
        StartBands.Band notYetKnown = sweepBand(NOW + 60); // the same runs, ending after the moment: not known then
        assertTrue(notYetKnown.p50At() == null || notYetKnown.p50At() > NOW + 4 * 3600,
                "P50 " + (notYetKnown.p50At() == null ? "beyond the horizon" : notYetKnown.p50At() - NOW + " s from now") + " from runs that had not ended");
    }

    /**
     * The band of a whole-node job waiting behind a service that holds the node now, having shown these per-step peaks
     * (the last, 8 GPUs, the step that just ended) and 8 GPUs over its last burstMinutes minutes.
     */
    private StartBands.Band behindAService(double[] steps, int burstMinutes, int horizonSteps) {
        double[] minutes = new double[1440];
        Arrays.fill(minutes, minutes.length - burstMinutes, minutes.length, 8);
        List<Placement> held = new ArrayList<>();
        for (int g = 0; g < 8; g++) held.add(new Placement(List.of(new Placement.Slice(0, g, 1))));
        ServiceState chat = new ServiceState(new InferenceService("chat", "serving", 10, 8), held, 8, steps, minutes, 8);
        ClusterMoment m = new ClusterMoment(NOW, 900, horizonSteps, List.of(NodeState.ready(node)), List.of(job("w", 1, NOW - 60, null)), null,
                List.of(chat), runsOf(200));
        HorizonPolicy policy = new HorizonPolicy();
        return StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, ExpectedArrivals.NONE, Set.of("w"), StartBands.SAMPLES, 7).get("w");
    }

    @Test
    void inferenceThatJustBurstFollowsItsUsualDaysNotItsForecastEnvelope() {
        // idle for two days but the last step: the burst holds the whole node and its reservation now; the same steps on
        // the days before were idle, so the service shrinks at the next step (its forecast, an envelope, stays high for
        // two hours, and the reservation set for this step would hold the node all day)
        double[] steps = new double[2 * 96 + 1];
        steps[steps.length - 1] = 8;
        StartBands.Band b = behindAService(steps, 5, 16);
        assertTrue(b.p90At() != null && b.p90At() <= NOW + 900, "P90 " + (b.p90At() == null ? "beyond the horizon" : b.p90At() - NOW + " s from now"));
    }

    @Test
    void inferenceQuietYesterdayButBusyTheRestOfTheWeekIsExpectedBusy() {
        // the service holds the whole node now; six days of the week it went on holding it for four more hours, but
        // yesterday (a Sunday) it went idle right after this time: the futures replay the week's days, not yesterday
        // alone, so most of them keep the node busy
        int perDay = 96;
        double[] steps = new double[7 * perDay + 1];
        steps[steps.length - 1] = 8;
        for (int day = 2; day <= 7; day++) Arrays.fill(steps, steps.length - day * perDay - 1, steps.length - day * perDay + 16, 8);
        StartBands.Band b = behindAService(steps, 15, 32);
        assertTrue(b.p50At() == null || b.p50At() >= NOW + 3 * 3600, "P50 " + (b.p50At() == null ? "beyond the horizon" : b.p50At() - NOW + " s from now")
                + ": six days in seven the node served inference for the next four hours");
    }

    @Test
    void aChainOfRunsBeyondTheFineStepsAddsNoStepsToTheWait() {
        // one node, one run ending in 2,400 s and five of the team's jobs queued behind it, each of ~3,000 s: a step is
        // 900 s, so a run that started at the step after its GPUs freed would end up to a step late, link after link
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.TRAINING, 2950 + (100 * i) / 39);
        List<ActiveJob> jobs = new ArrayList<>();
        jobs.add(job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false)));
        for (int i = 1; i <= 5; i++) jobs.add(job("w" + i, 1, NOW - 600 + i, null));
        ClusterMoment m = new ClusterMoment(NOW, 900, 32, List.of(NodeState.ready(node)), jobs, null, List.of(), d);
        HorizonPolicy policy = new HorizonPolicy();
        Set<String> waiting = Set.of("w1", "w2", "w3", "w4", "w5");
        Map<String, StartBands.Band> bands = StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, ExpectedArrivals.NONE, waiting,
                StartBands.SAMPLES, 7);
        assertTrue(waiting.stream().allMatch(id -> bands.get(id).p50At() != null), "every job of the chain starts within the 8 h horizon");
        long last = waiting.stream().mapToLong(id -> bands.get(id).p50At()).max().orElseThrow();
        long chainEnd = NOW + 2400 + 4 * 3000;
        assertTrue(Math.abs(last - chainEnd) <= 300, "the last of the chain starts at P50 " + (last - NOW) + " s from now; the runs before it end "
                + (chainEnd - NOW) + " s from now");
    }

    @Test
    void shortRunsBeyondTheFineStepsFollowOneAnotherWithinAStep() {
        // one GPU, a run ending 2,400 s from now (past the steps decided at every event) and five jobs of ~200 s queued
        // behind it: the world starts each the moment the one before ends, so the fifth starts ~3,200 s from now, not
        // a 900 s step per job later
        DurationEstimator d = runsOf(100);
        for (int i = 0; i < 40; i++) d.observe("s", JobClass.TRAINING, 190 + (20 * i) / 39);
        GpuNode one = new GpuNode("n0", "H100-80GB", 1, 81_559, "rack-a");
        List<ActiveJob> jobs = new ArrayList<>();
        jobs.add(new ActiveJob("r", "t", JobClass.TRAINING, 1, 1, 1, NOW - 700, null, TRAINING, null, null, null,
                new ActiveJob.Running(NOW - 1200, new Placement(List.of(new Placement.Slice(0, 0, 1))), false)));
        for (int i = 1; i <= 5; i++) jobs.add(new ActiveJob("s" + i, "s", JobClass.TRAINING, 1, 1, 1, NOW - 600 + i, null, TRAINING, null, null, null, null));
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(one)), jobs, null, List.of(), d);
        HorizonPolicy policy = new HorizonPolicy();
        StartBands.Band fifth = StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, ExpectedArrivals.NONE, Set.of("s5"), StartBands.SAMPLES, 7)
                .get("s5");
        assertNotNull(fifth.p50At(), "the fifth short job starts within the 4 h horizon");
        assertTrue(Math.abs(fifth.p50At() - (NOW + 3200)) <= 300, "P50 " + (fifth.p50At() - NOW) + " s from now; the four runs before it end ~3,200 s from now");
    }

    /** A running job and six waiting ones of about an hour each, one after another on the one node, with a 4 h horizon. */
    private Map<String, StartBands.Band> queueOfSix(int beyondSteps) {
        List<ActiveJob> jobs = new ArrayList<>();
        jobs.add(job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false)));
        for (int i = 1; i <= 6; i++) jobs.add(job("w" + i, 1, NOW - 60 + i, null));
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), jobs, null, List.of(), runsOf(200));
        HorizonPolicy policy = new HorizonPolicy();
        Set<String> waiting = new java.util.LinkedHashSet<>(List.of("w1", "w2", "w3", "w4", "w5", "w6"));
        return StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, ExpectedArrivals.NONE, waiting, StartBands.SAMPLES, 7, beyondSteps);
    }

    @Test
    void pastTheHorizonTheQueueIsPlayedOnButOnlyTheHorizonsStartsAreCalibrated() {
        long horizonEnd = NOW + 16 * 900;
        Map<String, StartBands.Band> bounded = queueOfSix(0), played = queueOfSix(16);
        assertNull(bounded.get("w6").projected(0.5), "without playing on, the sixth job (about 5 h out) has no start");
        Long sixth = played.get("w6").projected(0.5);
        assertNotNull(sixth, "played 4 h past the horizon, it has one");
        assertTrue(sixth > horizonEnd && sixth < horizonEnd + 16 * 900, "P50 " + (sixth - NOW) + " s from now, past the 4 h horizon");
        assertNull(played.get("w6").at(0.5), "a start past the horizon is not a calibrated level: the calibrator sees it beyond the horizon");
        assertEquals(bounded.get("w1").p50At(), played.get("w1").p50At(), "within the horizon both say the same");
    }

    @Test
    void farPastTheHorizonTheFuturesDecideFurtherApartAndAChainOfRunsStillStartsWhereTheRunsBeforeItEnd() {
        assertEquals(Projection.BEYOND_STRIDE, Projection.strideBeyond(0), "hourly at the horizon");
        assertEquals(Projection.BEYOND_STRIDE, Projection.strideBeyond(39), "still hourly ten hours past it");
        assertEquals(12, Projection.strideBeyond(96), "every 3 h a day past it");
        assertEquals(24, Projection.strideBeyond(192), "every 6 h two days past it");
        // one node, a run ending ~50 min from now and 40 jobs of about an hour queued behind it, a 4 h horizon played on
        // 40 h: past ~12 h the policy is asked hours apart, and each run still starts when the one before it ends
        List<ActiveJob> jobs = new ArrayList<>();
        jobs.add(job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false)));
        for (int i = 1; i <= 40; i++) jobs.add(job("w" + i, 1, NOW - 60 + i, null));
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), jobs, null, List.of(), runsOf(60));
        HorizonPolicy policy = new HorizonPolicy();
        Set<String> waiting = Set.of("w30", "w40");
        Map<String, StartBands.Band> bands = StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, ExpectedArrivals.NONE, waiting,
                StartBands.SAMPLES, 7, 160);
        for (String id : waiting) {
            int before = Integer.parseInt(id.substring(1)) - 1;
            Long p50 = bands.get(id).projected(0.5);
            assertNotNull(p50, id + " starts within the 44 h played");
            assertTrue(Math.abs(p50 - (NOW + 3000 + before * 3600L)) <= 1800, id + " starts at P50 " + (p50 - NOW) / 3600.0 + " h from now; the "
                    + before + " runs of ~1 h before it end " + (3000 + before * 3600) / 3600.0 + " h from now");
        }
    }

    @Test
    void aJobWaitingForAGpuToBeRepartitionedStartsOnceTheFutureHasRepartitionedIt() {
        GpuNode a100 = new GpuNode("a100", "A100-80GB", 8, 81_920, "rack-a");
        MigPolicy dynamic = new MigPolicy("a100", Set.of("A100-80GB"), Set.of("1g.10gb"), MigPolicy.Layout.DYNAMIC, Duration.ofMinutes(5), 1);
        List<NodeState.Gpu> whole = new ArrayList<>();
        for (int g = 0; g < 8; g++) whole.add(NodeState.Gpu.WHOLE);
        NodeState node = new NodeState(a100, NodeState.Health.READY, dynamic, whole, null);
        ActiveJob debug = new ActiveJob("debug", "t", JobClass.DEBUG, 1, 1, 1, NOW - 60, null, Contract.defaultFor(JobClass.DEBUG),
                SliceRequest.mig("1g.10gb"), null, null, null);
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(node), List.of(debug), null, List.of(), new DurationEstimator());
        HorizonPolicy policy = new HorizonPolicy();
        Decision d = policy.decide(ContextBuilder.build(m));
        assertEquals(1, d.reconfigurations().size(), "the moment's decision asks for an idle GPU in 1g.10gb instances: " + d.waitReasons());
        StartBands.Band b = StartBands.of(m, d, policy, ExpectedArrivals.NONE, Set.of("debug"), StartBands.SAMPLES, 7).get("debug");
        assertEquals(0, b.notStarted(), "with the layouts of the moment kept for ever, it started in no future");
        assertTrue(b.p90At() >= NOW + 300 && b.p90At() <= NOW + 900, "it starts once the GPU has drained for 5 min: P90 " + (b.p90At() - NOW) + " s from now");
    }

    @Test
    void aJobNotStartedByTheEndOfItsFuturesKeepsThePolicysLastReasonForIt() {
        Map<String, StartBands.Band> bounded = queueOfSix(0);
        StartBands.Band sixth = bounded.get("w6");
        assertEquals(StartBands.SAMPLES, sixth.notStarted(), "the sixth job (about 5 h out) starts in no future that ends at the 4 h horizon");
        assertNotNull(sixth.stillWaiting(), "the policy said why it still waited at the end of its futures");
        assertTrue(sixth.stillWaiting().contains("planned") || sixth.stillWaiting().contains("behind") || sixth.stillWaiting().contains("ranked"),
                "the policy's own wait reason for a job queued behind others: " + sixth.stillWaiting());
        assertNull(bounded.get("w1").stillWaiting(), "the first job starts in every future: nothing to explain");
        assertEquals(sixth.stillWaiting(), sixth.after(NOW).stillWaiting(), "a band read again keeps the reason");
    }

    @Test
    void aJobNotStartedInMostFuturesNoLongerKeepsTheRestPlayingAndTheOthersBandsDoNotChange() {
        // one node busy for ~50 min, the team's next job behind it, and a job for GPUs no node has: it starts in no future
        ActiveJob running = job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        ActiveJob next = job("w", 1, NOW - 60, null);
        ActiveJob nowhere = new ActiveJob("b200", "t", JobClass.TRAINING, 1, 8, 8, NOW - 30, null, TRAINING, null,
                PlacementRules.ANY.withGpuTypes(Set.of("B200")), null, null);
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), List.of(running, next, nowhere), null, List.of(), runsOf(200));
        HorizonPolicy policy = new HorizonPolicy();
        Decision d = policy.decide(ContextBuilder.build(m));
        Map<String, StartBands.Band> both = StartBands.of(m, d, policy, ExpectedArrivals.NONE, Set.of("w", "b200"), StartBands.SAMPLES, 7, 16);
        StartBands.Band never = both.get("b200");
        assertEquals(StartBands.SAMPLES, never.notStarted());
        // settled once 7 futures did not start it; the next future started while the seventh played, so it followed it still
        int played = StartBands.SAMPLES / 2 + 1 + 1;
        assertEquals(StartBands.SAMPLES - played, never.unfollowed(), "after " + played + " futures it no longer keeps a future going: each of"
                + " the rest stops once the other job has started");
        assertNull(never.projected(0.5));
        assertNotNull(never.stillWaiting(), "the futures that stopped early still say why it waited");
        StartBands.Band alone = StartBands.of(m, d, policy, ExpectedArrivals.NONE, Set.of("w"), StartBands.SAMPLES, 7, 16).get("w");
        assertArrayEquals(alone.starts(), both.get("w").starts(), "the other job's starts are those of futures it alone keeps going");
        assertTrue(StartBands.settled(9, 16) && !StartBands.settled(8, 16), "the nearest-rank median of 16 is the 8th start: 9 without one leave it none");
        assertTrue(StartBands.settled(1, 1) && StartBands.settled(3, 4) && !StartBands.settled(2, 4));
    }

    @Test
    void futuresPlayedAtOnceOnSeveralThreadsGiveEveryJobTheBandTheyGiveOneAfterAnother() throws InterruptedException {
        // two nodes of two models, three teams' work running and twelve jobs waiting (one for GPUs no node has), work
        // expected to arrive, the futures played on past the horizon: a moment where every rule the futures keep plays
        GpuNode a100 = new GpuNode("n1", "A100-80GB", 8, 81_559, "rack-b");
        DurationEstimator d = runsOf(900);
        for (int i = 0; i < 40; i++) d.observe("u", JobClass.BATCH_INFERENCE, 1200 + 60L * i);
        List<ActiveJob> jobs = new ArrayList<>();
        jobs.add(job("r0", 2, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false)));
        jobs.add(new ActiveJob("r1", "u", JobClass.BATCH_INFERENCE, 1, 4, 4, NOW - 900, null, Contract.defaultFor(JobClass.BATCH_INFERENCE), null, null, null,
                new ActiveJob.Running(NOW - 800, new Placement(List.of(new Placement.Slice(1, 0, 4))), false)));
        for (int i = 0; i < 11; i++) {
            String team = i % 3 == 0 ? "u" : "t";
            JobClass c = team.equals("u") ? JobClass.BATCH_INFERENCE : JobClass.TRAINING;
            jobs.add(new ActiveJob("w" + i, team, c, 1 + i % 4, 1 << (i % 4), 1 << (i % 4), NOW - 600 + i, null, Contract.defaultFor(c), null,
                    i % 5 == 0 ? PlacementRules.ANY.withGpuTypes(Set.of("A100-80GB")) : null, null, null));
        }
        jobs.add(new ActiveJob("b200", "t", JobClass.TRAINING, 1, 8, 8, NOW - 30, null, TRAINING, null, PlacementRules.ANY.withGpuTypes(Set.of("B200")), null, null));
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node), NodeState.ready(a100)), jobs, null, List.of(), d);
        Set<String> waiting = new java.util.LinkedHashSet<>();
        jobs.stream().filter(j -> !j.isRunning()).forEach(j -> waiting.add(j.id()));
        ExpectedArrivals expected = new ExpectedArrivals(jobs.stream().filter(j -> !j.isRunning()).toList(), 4 * 3600);
        HorizonPolicy policy = new HorizonPolicy();
        Decision decided = policy.decide(ContextBuilder.build(m));
        Map<String, StartBands.Band> oneAfterAnother = StartBands.of(m, decided, policy, expected, waiting, StartBands.SAMPLES, 7, 32);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.Executor counted = r -> pool.execute(() -> {
            threads.add(Thread.currentThread().getName());
            r.run();
        });
        Map<String, StartBands.Band> atOnce;
        try {
            atOnce = StartBands.of(m, decided, new StartBands.Players(HorizonPolicy::new, counted, 4), expected, waiting, StartBands.SAMPLES, 7, 32);
        } finally {
            pool.shutdown();
        }
        assertTrue(threads.size() > 1, "the futures were played on several threads: " + threads);
        for (String id : waiting) {
            StartBands.Band one = oneAfterAnother.get(id), many = atOnce.get(id);
            assertEquals(one.projected(0.5), many.projected(0.5), id + "'s P50");
            assertEquals(one.projected(0.9), many.projected(0.9), id + "'s P90");
            assertEquals(one.stillWaiting(), many.stillWaiting(), id + "'s reason");
            if (one.unfollowed() == 0 && many.unfollowed() == 0) assertArrayEquals(one.starts(), many.starts(), id + "'s starts");
        }
        assertNull(atOnce.get("b200").projected(0.5), "no node holds it in any future");
        assertTrue(waiting.stream().filter(id -> atOnce.get(id).projected(0.5) != null).count() >= 10
                && waiting.stream().filter(id -> atOnce.get(id).projected(0.9) != null).count() >= 4, "bands to compare: " + atOnce);
        assertTrue(oneAfterAnother.values().stream().filter(b -> b.unfollowed() == 0).count() >= 11, "the eleven jobs a node can hold were followed to the end");
    }

    @Test
    void theNextBatchOfFuturesStartsWhileTheSlowestOfTheOneBeforePlays() throws Exception {
        ActiveJob running = job("r", 1, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), List.of(running, job("w", 1, NOW - 60, null)), null, List.of(), runsOf(200));
        HorizonPolicy policy = new HorizonPolicy();
        Decision d = policy.decide(ContextBuilder.build(m));
        // the first future played holds its thread until a third is handed over: two at once, so that one is of the next batch
        java.util.concurrent.CountDownLatch third = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger handed = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean waitedInVain = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        java.util.concurrent.Executor slowFirst = r -> {
            int n = handed.incrementAndGet();
            if (n == 3) third.countDown();
            pool.execute(() -> {
                try {
                    if (n == 1 && !third.await(10, java.util.concurrent.TimeUnit.SECONDS)) waitedInVain.set(true);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                r.run();
            });
        };
        Map<String, StartBands.Band> played;
        try {
            played = StartBands.of(m, d, new StartBands.Players(HorizonPolicy::new, slowFirst, 2), ExpectedArrivals.NONE, Set.of("w"), StartBands.SAMPLES, 7, 16);
        } finally {
            pool.shutdown();
        }
        assertFalse(waitedInVain.get(), "the second batch was handed over only once the first had ended");
        assertArrayEquals(StartBands.of(m, d, policy, ExpectedArrivals.NONE, Set.of("w"), StartBands.SAMPLES, 7, 16).get("w").starts(), played.get("w").starts(),
                "the same starts as one future after another");
    }

    @Test
    void theQueueAloneLeavesTheBandsAsTheyWereAndIsTheSameInFreeSlotsAsAfterThem() {
        // one node running a job, a low job behind it, value-8 whole-node work expected every 20 minutes: three times the node
        DurationEstimator d = runsOf(900);
        ActiveJob running = job("r", 8, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        ActiveJob low = new ActiveJob("low", "t", JobClass.TRAINING, 1, 8, 8, NOW - 60, null, TRAINING, null, null, null, null);
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), List.of(running, low), null, List.of(), d);
        List<ActiveJob> recent = new ArrayList<>();
        for (int i = 1; i <= 3; i++) recent.add(new ActiveJob("a" + i, "t", JobClass.TRAINING, 8, 8, 8, NOW - 1200L * i, null, TRAINING, null, null, null, null));
        ExpectedArrivals expected = new ExpectedArrivals(recent, 3600);
        HorizonPolicy policy = new HorizonPolicy();
        Decision decided = policy.decide(ContextBuilder.build(m));
        StartBands.Computed plain = StartBands.computed(m, decided, StartBands.Players.oneAtATime(policy), expected, Set.of("low"), StartBands.SAMPLES, 7, 32);
        StartBands.Computed withAlone = StartBands.computedWithQueueAlone(m, decided, StartBands.Players.oneAtATime(policy), expected, Set.of("low"),
                StartBands.SAMPLES, 7, 32, first -> { });
        assertArrayEquals(plain.bands().get("low").starts(), withAlone.bands().get("low").starts(), "the futures with arrivals are drawn as before");
        assertTrue(plain.alone().isEmpty(), "none asked for");
        assertNull(withAlone.bands().get("low").projected(0.5), "the work expected to arrive keeps it waiting");
        StartBands.Band alone = withAlone.alone().get("low");
        assertEquals(StartBands.QUEUE_ALONE_SAMPLES, alone.starts().length);
        assertNotNull(alone.projected(0.9), "with nothing arriving it starts once the running job ends: " + java.util.Arrays.toString(alone.starts()));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            // 16 at once: the 12 futures with arrivals leave 4 slots, where the queue alone's are played
            StartBands.Computed packed = StartBands.computedWithQueueAlone(m, decided, new StartBands.Players(HorizonPolicy::new, pool, 16), expected,
                    Set.of("low"), StartBands.SAMPLES, 7, 32, first -> { });
            assertArrayEquals(alone.starts(), packed.alone().get("low").starts(), "the queue alone's futures are the same however they are played");
            assertArrayEquals(plain.bands().get("low").starts(), packed.bands().get("low").starts());
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void aBandReadAfterItsTimeKeepsTheFuturesNotStartedByThen() {
        StartBands.Band b = new StartBands.Band(new long[] {10, 20, 30, 40, 50, 60, 70, Long.MAX_VALUE}, 65, null, 0);
        StartBands.Band left = b.after(35);
        assertArrayEquals(new long[] {40, 50, 60, 70, Long.MAX_VALUE}, left.starts());
        assertEquals(60L, left.at(0.5));
        assertNull(left.at(0.8), "70 is past the horizon (65)");
        assertEquals(70L, left.projected(0.8));
        assertNull(b.after(55), "three futures left are too few to say");
        assertEquals(1, b.notStarted());
    }
}
