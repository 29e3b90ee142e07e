package dev.horizon.service.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.ExpectedArrivals;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.Decision;
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
import dev.horizon.service.jobs.StartOutlook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A job submitted after the latest bands has one at the next plan, read off the work like it those bands' futures
 * brought, instead of "no band yet" until the next computation (which takes a minute on 10,000 GPUs, and simulated hours
 * on the demo's fast clock).
 */
class LikeBandsTest {
    private static final long NOW = 36_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);
    private final GpuNode node = new GpuNode("n0", "H100-80GB", 8, 81_559, "rack-a");
    private final DurationEstimator durations = runs();

    private static DurationEstimator runs() {
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.TRAINING, 3400 + 10 * i);
        return d;
    }

    private static ActiveJob job(String id, int gpus, long arrival, ActiveJob.Running run) {
        return new ActiveJob(id, "t", JobClass.TRAINING, 1, gpus, gpus, arrival, null, TRAINING, null, null, null, run);
    }

    private ClusterMoment moment(long now, List<ActiveJob> jobs) {
        return new ClusterMoment(now, 900, 96, List.of(NodeState.ready(node)), jobs, null, List.of(), durations);
    }

    private final ActiveJob running = job("r", 8, NOW - 700, new ActiveJob.Running(NOW - 600, new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
    private final ActiveJob waiting = job("w", 8, NOW - 60, null);

    /** The bands of the plan at NOW, as the leader computes them: a whole-node job of the team's has come every 20 minutes. */
    private StartTimes.Snapshot computedAtNow() {
        ClusterMoment m = moment(NOW, List.of(running, waiting));
        HorizonPolicy policy = new HorizonPolicy();
        List<ActiveJob> recent = List.of(job("a1", 8, NOW - 3600, null), job("a2", 8, NOW - 2400, null), job("a3", 8, NOW - 1200, null));
        StartBands.Computed c = StartBands.computed(m, policy.decide(ContextBuilder.build(m)), StartBands.Players.oneAtATime(policy),
                new ExpectedArrivals(recent, 3600), Set.of("w"), StartBands.SAMPLES, NOW, StartBands.beyondSteps(StartBands.BEYOND_HOURS, 900));
        Calibrator calibrator = new Calibrator();
        Long[] levels = calibrator.shown("w", NOW, c.bands().get("w"));
        StartTimes.Shown w = new StartTimes.Shown(levels[Calibrator.P50], levels[Calibrator.P90], null);
        return new StartTimes.Snapshot(NOW, Map.of("w", w), c.bands(), calibrator.learnt(), c.like());
    }

    /** The plan ten minutes later, with new jobs waiting: nothing started. */
    private Decision plannedAt(ClusterMoment later) {
        return new HorizonPolicy().decide(ContextBuilder.build(later));
    }

    @Test
    void aJobSubmittedAfterTheLatestBandsHasOneAtTheNextPlanFromTheWorkLikeItInTheirFutures() {
        StartTimes.Snapshot s = computedAtNow();
        long later = NOW + 600;
        List<ActiveJob> jobs = new ArrayList<>(List.of(running, waiting, job("new", 8, later - 30, null), job("unlike", 2, later - 30, null)));
        ClusterMoment m = moment(later, jobs);
        StartTimes.Snapshot with = s.withLikeBands(m, plannedAt(m));

        StartOutlook.Band band = BandReading.read(with, "new", later, null).band();
        assertNotNull(band.p50At(), band.note());
        assertNotNull(band.p90At(), band.note());
        assertTrue(band.note().startsWith("it came after the plan of "), band.note());
        assertTrue(band.note().contains("work like it (its team, class, priority and shape) waited in "), band.note());
        long waitingP50 = s.byJob().get("w").p50At();
        assertTrue(band.p50At() >= waitingP50 + 2400, "it queues behind the job already waiting, which runs ~1 h: P50 " + (band.p50At() - NOW)
                + " s from the plan of the bands, the waiting job's " + (waitingP50 - NOW) + " s");
        assertEquals(NOW, band.bandsAt(), "the band is of the latest bands' futures");

        StartOutlook.Band unlike = BandReading.read(with, "unlike", later, null).band();
        assertEquals(null, unlike.p50At(), "no future brought a 2-GPU job: " + unlike.note());
        assertTrue(unlike.note().startsWith("no band yet: it came after the plan of "), unlike.note());
    }

    @Test
    void aJobWithABandKeepsItAndAPlanWithNoNewJobLeavesTheBandsAsTheyAre() {
        StartTimes.Snapshot s = computedAtNow();
        ClusterMoment same = moment(NOW + 600, List.of(running, waiting));
        assertSame(s, s.withLikeBands(same, plannedAt(same)));
        StartTimes.Snapshot with = s.withLikeBands(moment(NOW + 600, List.of(running, waiting, job("new", 8, NOW + 570, null))),
                plannedAt(moment(NOW + 600, List.of(running, waiting, job("new", 8, NOW + 570, null)))));
        assertEquals(s.byJob().get("w"), with.byJob().get("w"), "the waiting job's own band is not replaced");
        ClusterMoment again = moment(NOW + 1200, List.of(running, waiting, job("new", 8, NOW + 570, null)));
        assertSame(with, with.withLikeBands(again, plannedAt(again)), "a band read off the futures is kept, not drawn again at every plan");
    }

    /** What decides whether the worker rests before the next computation: a waiting job with no band even off the work like it. */
    @Test
    void onlyAJobNoFutureBroughtTheLikeOfLeavesThePlanWithoutABand() {
        StartTimes.Snapshot s = computedAtNow();
        ClusterMoment same = moment(NOW + 600, List.of(running, waiting));
        assertFalse(s.leavesWithoutBand(same, plannedAt(same)), "the computed job has its band");
        ClusterMoment like = moment(NOW + 600, List.of(running, waiting, job("new", 8, NOW + 570, null)));
        assertFalse(s.leavesWithoutBand(like, plannedAt(like)), "a job like the futures' arrivals reads its band off them");
        ClusterMoment unlike = moment(NOW + 600, List.of(running, waiting, job("new", 8, NOW + 570, null), job("unlike", 2, NOW + 570, null)));
        assertTrue(s.leavesWithoutBand(unlike, plannedAt(unlike)), "no future brought a 2-GPU job");
        assertTrue(StartTimes.Snapshot.NONE.leavesWithoutBand(same, plannedAt(same)), "before the first computation every waiting job has none");
    }

    @Test
    void aJobWithoutABandGetsOneFromTheFirstFuturesOfTheNextComputationAndOneWithABandKeepsIt() {
        StartTimes.Snapshot s = computedAtNow();
        long later = NOW + 600, horizonEnd = later + 96 * 900;
        StartBands.Band first = new StartBands.Band(new long[] {later + 600, later + 900, later + 1200, later + 1500}, horizonEnd, null, 0);
        StartBands.Band never = new StartBands.Band(new long[] {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE}, horizonEnd, null, 0);
        StartTimes.Snapshot with = s.withFirstFutures(Map.of("w", first, "new", first, "never", never), later, StartBands.SAMPLES, s.learnt());

        assertEquals(s.byJob().get("w"), with.byJob().get("w"), "a job with a band keeps it until the computation's own");
        assertEquals(NOW, with.bandsAt(), "the bands are still those of the plan at NOW");
        StartOutlook.Band band = BandReading.read(with, "new", later, null).band();
        assertNotNull(band.p50At(), band.note());
        assertTrue(band.p90At() >= band.p50At() && band.p50At() >= later + 600, band.p50At() - later + " / " + (band.p90At() - later));
        assertTrue(band.note().startsWith("a first band, from 4 of the 12 sampled futures of the plan of "), band.note());
        assertFalse(with.byJob().containsKey("never"), "no future started it: it waits for the computation's own answer");
        assertSame(with, with.withFirstFutures(Map.of("new", first), later, StartBands.SAMPLES, s.learnt()));
    }

    @Test
    void bandsFromTheStoreHaveNoFuturesToReadFrom() {
        StartTimes.Snapshot stored = StartTimes.Snapshot.stored(NOW, Map.of("w", new StartTimes.Shown(NOW + 3000, NOW + 3300, null)));
        ClusterMoment m = moment(NOW + 600, List.of(running, waiting, job("new", 8, NOW + 570, null)));
        StartTimes.Snapshot with = stored.withLikeBands(m, plannedAt(m));
        assertSame(stored, with);
        assertFalse(with.byJob().containsKey("new"));
    }
}
