package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LikeArrivalsTest {
    private static final long NOW = 36_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);

    private static ActiveJob job(String id, double priority, int gpus, long arrival, ActiveJob.Running run) {
        return new ActiveJob(id, "t", JobClass.TRAINING, priority, gpus, gpus, arrival, null, TRAINING, null, null, null, run);
    }

    /** One 8-GPU node running a whole-node job 600 s into its ~1 h, and one more waiting behind it. */
    private static ClusterMoment moment() {
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.TRAINING, 3400 + 10 * i);
        GpuNode node = new GpuNode("n0", "H100-80GB", 8, 81_559, "rack-a");
        ActiveJob running = job("r", 1, 8, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        return new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(node)), List.of(running, job("w", 1, 8, NOW - 60, null)), null, List.of(), d);
    }

    /** A whole-node job of the team's has come every 20 minutes over the last hour. */
    private static ExpectedArrivals everyTwentyMinutes() {
        return new ExpectedArrivals(List.of(job("a1", 1, 8, NOW - 3600, null), job("a2", 1, 8, NOW - 2400, null), job("a3", 1, 8, NOW - 1200, null)), 3600);
    }

    /** The futures' bands of the moment, with their early arrivals kept. */
    private static StartBands.Computed computed() {
        ClusterMoment m = moment();
        HorizonPolicy policy = new HorizonPolicy();
        return StartBands.computed(m, policy.decide(ContextBuilder.build(m)), StartBands.Players.oneAtATime(policy), everyTwentyMinutes(),
                Set.of("w"), StartBands.SAMPLES, 7, StartBands.beyondSteps(24, 900));
    }

    @Test
    void aJobSubmittedAfterTheBandsQueuesInThemLikeTheWorkLikeItThatTheFuturesBrought() {
        StartBands.Computed c = computed();
        assertEquals(StartBands.SAMPLES, c.like().futures());
        long submitted = NOW + 600;
        ActiveJob n = job("n", 1, 8, submitted, null);
        StartBands.Band late = c.like().bandsOf(List.of(n), List.of(n), submitted).get("n");
        assertNotNull(late, "every future brings a whole-node job of the team within the hour");
        assertTrue(late.starts().length >= StartBands.MIN_LEFT);
        for (long s : late.starts()) assertTrue(s >= submitted, "a start " + (s - submitted) + " s after its submission");
        // it queues behind the running job and the one already waiting: each holds the node about an hour
        StartBands.Band waiting = c.bands().get("w");
        assertNotNull(late.p50At());
        assertTrue(late.p50At() >= waiting.p50At() + 2400,
                "the new job's P50 " + (late.p50At() - NOW) + " s from now, the job ahead of it starts at " + (waiting.p50At() - NOW) + " s and runs ~1 h");
    }

    @Test
    void playingOnForTheEarlyArrivalsLeavesTheTrackedJobsBandsAsTheyWere() {
        ClusterMoment m = moment();
        HorizonPolicy policy = new HorizonPolicy();
        StartBands.Band alone = StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, everyTwentyMinutes(), Set.of("w"),
                StartBands.SAMPLES, 7, StartBands.beyondSteps(24, 900)).get("w");
        assertArrayEquals(alone.starts(), computed().bands().get("w").starts(), "the waiting job's starts in each future");
    }

    /**
     * Four futures, each of which brought two jobs like the asked ones within a minute of NOW + 600: the first started at
     * once, the second after an hour.
     */
    private static LikeArrivals twoLikeItInEachOfFourFutures() {
        List<List<LikeArrivals.Arrived>> futures = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            futures.add(List.of(new LikeArrivals.Arrived(job("f" + k + "-a", 1, 8, NOW + 600, null), NOW + 600),
                    new LikeArrivals.Arrived(job("f" + k + "-b", 1, 8, NOW + 660, null), NOW + 660 + 3600)));
        }
        return LikeArrivals.of(futures, NOW, NOW + 86_400);
    }

    @Test
    void theSecondOfTwoJobsLikeItSubmittedTogetherReadsTheSecondSuchArrivalsWait() {
        ActiveJob first = job("n1", 1, 8, NOW + 600, null), second = job("n2", 1, 8, NOW + 600, null);
        Map<String, StartBands.Band> bands = twoLikeItInEachOfFourFutures().bandsOf(List.of(first, second), List.of(first, second), NOW + 600);
        assertEquals(NOW + 600, bands.get("n1").p50At(), "the nearest like it started at once");
        assertEquals(NOW + 600 + 3600, bands.get("n2").p50At(), "the second waits behind the first, as the second like it did");
        Map<String, StartBands.Band> alone = twoLikeItInEachOfFourFutures().bandsOf(List.of(second), List.of(second), NOW + 600);
        assertEquals(NOW + 600, alone.get("n2").p50At(), "alone, it is the first of its kind since the bands");
    }

    @Test
    void aJobThatHasWaitedReadsOnlyTheFuturesWhereWorkLikeItWaitedAsLong() {
        ActiveJob n = job("n", 1, 8, NOW + 600, null);
        StartBands.Band b = twoLikeItInEachOfFourFutures().bandsOf(List.of(n), List.of(n), NOW + 1200).get("n");
        assertEquals(NOW + 600 + 3600, b.p50At(), "the arrival that started at once says nothing of a job still waiting 600 s later");
    }

    @Test
    void noFutureBroughtWorkOfAnotherKindSoItHasNoBandFromThem() {
        StartBands.Computed c = computed();
        List<ActiveJob> asked = List.of(job("other-size", 1, 4, NOW + 600, null), job("other-rank", 5, 8, NOW + 600, null),
                job("too-late", 1, 8, NOW + LikeArrivals.WINDOW_SECONDS + 2 * LikeArrivals.NEAREST_SECONDS, null));
        assertEquals(Map.of(), c.like().bandsOf(asked, asked, NOW + 600),
                "no 4-GPU job came, no priority-5 job, and the futures keep no arrivals that far past their moment");
    }

    @Test
    void noFuturesNoBand() {
        ActiveJob n = job("n", 1, 8, NOW, null);
        assertEquals(Map.of(), LikeArrivals.NONE.bandsOf(List.of(n), List.of(n), NOW));
    }
}
