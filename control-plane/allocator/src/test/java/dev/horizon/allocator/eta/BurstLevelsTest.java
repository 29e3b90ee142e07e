package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.GpuNode;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.JobState;
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

/** How past bursts ran against their windows, and what that says of a sweep's band. */
class BurstLevelsTest {
    private static final long NOW = 400_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);

    /**
     * A history of team's: every 2 h, ten single runs of 100 s (an hour apart from one another they are bursts of one), and
     * bursts of four one-GPU runs that took burstSeconds each.
     */
    private static void history(DurationEstimator d, String team, int bursts, long burstSeconds) {
        for (int b = 0; b < bursts; b++) {
            long t = 10_000L * b;
            for (int i = 0; i < 10; i++) d.observe(new DurationEstimator.Finished(team, JobClass.TRAINING, 2, t + 700L * i, t + 700L * i + 100, 100));
            for (int i = 0; i < 4; i++) {
                long arrival = t + 8000 + 10L * i;
                d.observe(new DurationEstimator.Finished(team, JobClass.TRAINING, 1, arrival, arrival + burstSeconds, burstSeconds));
            }
        }
    }

    @Test
    void learnsHowFarPastBurstsFellFromTheWindowTheyDrewFrom() {
        DurationEstimator d = new DurationEstimator();
        history(d, "u", 25, 1000);
        BurstLevels levels = BurstLevels.of(d);
        assertTrue(levels.learnt());
        assertEquals(10, levels.factor(0.5), 0.5, "the bursts ran 1,000 s where the team's runs took 100 s");
    }

    @Test
    void tooFewPastBurstsDrawNoLevel() {
        DurationEstimator d = new DurationEstimator();
        history(d, "u", BurstLevels.MIN_BURSTS - 1, 1000);
        assertFalse(BurstLevels.of(d).learnt());
        assertEquals(1, BurstLevels.of(d).factor(0.9));
    }

    private static JobState job(String id, int gpus, long arrival) {
        return new JobState(id, "t", JobClass.TRAINING, 1, gpus, gpus, arrival, null, TRAINING, null, null, null, null);
    }

    @Test
    void aBurstChainsArrivalsOfOneShapeAndAJobAloneHasNone() {
        List<JobState> jobs = List.of(job("a", 1, 0), job("b", 1, 500), job("c", 1, 1000), job("d", 1, 2000), job("e", 2, 500));
        Map<String, Integer> bursts = BurstLevels.bursts(jobs);
        assertEquals(Set.of("a", "b", "c"), bursts.keySet(), "c came 500 s after b, d 1,000 s after c, e asks for two GPUs: " + bursts);
        assertEquals(1, Set.copyOf(bursts.values()).size());
    }

    /**
     * The latest median start among a sweep of team t's on one GPU (one running for a minute, three waiting): t's runs
     * took 100 s, and team u's past bursts took burstSeconds each where u's runs took 100 s.
     */
    private static long latestMedianStart(long burstSeconds) {
        DurationEstimator d = new DurationEstimator();
        history(d, "u", 25, burstSeconds);
        for (int i = 0; i < 40; i++) d.observe(new DurationEstimator.Finished("t", JobClass.TRAINING, 2, 5000L * i, 5000L * i + 100, 100));
        JobState running = new JobState("r", "t", JobClass.TRAINING, 1, 1, 1, NOW - 300, null, TRAINING, null, null, null,
                new JobState.Running(NOW - 60, new Placement(List.of(new Placement.Slice(0, 0, 1))), false));
        List<JobState> jobs = new ArrayList<>(List.of(running));
        for (int i = 1; i <= 3; i++) jobs.add(job("w" + i, 1, NOW - 300 + 10L * i));
        GpuNode one = new GpuNode("n0", "H100-80GB", 1, 81_559, "rack-a");
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(NodeState.ready(one)), jobs, null, List.of(), d);
        HorizonPolicy policy = new HorizonPolicy();
        Map<String, StartBands.Band> bands = StartBands.of(m, policy.decide(ContextBuilder.build(m)), policy, ExpectedArrivals.NONE,
                Set.of("w1", "w2", "w3"), StartBands.SAMPLES, 7);
        return bands.values().stream().mapToLong(b -> b.p50At() == null ? Long.MAX_VALUE : b.p50At()).max().orElseThrow() - NOW;
    }

    @Test
    void aSweepStartsLaterWhenPastSweepsRanFarLongerThanTheirTeamsRuns() {
        long alike = latestMedianStart(100);
        long longer = latestMedianStart(1000);
        assertTrue(alike < 900, "past sweeps ran as their teams' runs did: three 100 s runs ahead at most (P50 " + alike + " s from now)");
        assertTrue(longer > alike + 1500, "past sweeps ran ten times their teams' runs: the sweep's three runs ahead are drawn ten times as long (P50 "
                + longer + " s from now, " + alike + " s when sweeps ran as their teams' runs)");
    }
}
