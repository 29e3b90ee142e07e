package dev.horizon.service.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.planning.NodesOut;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a waiting job is told when the futures played past the horizon give it no band, or no P90. */
class BandNotesTest {
    private static final long NOW = 100_800;
    private static final String POLICY_SAID = "no GPU has room for 2 x 500 milli-GPU with 40779 MiB beside work it already holds";
    private final ClusterMoment moment = new ClusterMoment(NOW, 900, 96, List.of(NodeState.ready(new GpuNode("n0", "H100-80GB", 8, 81_559, "n0"))),
            List.of(), null, List.of(), new DurationEstimator());
    private final ActiveJob job = new ActiveJob("j", "t", JobClass.TRAINING, 1, 1, 1, NOW - 60, null, Contract.defaultFor(JobClass.TRAINING), null, null,
            null, null);

    /** Sixteen futures: the job started in the first `started` of them, an hour apart, and in none of the rest. */
    private static long[] startedIn(int started) {
        long[] s = new long[16];
        Arrays.fill(s, Long.MAX_VALUE);
        for (int i = 0; i < started; i++) s[i] = NOW + 3600L * (i + 1);
        return s;
    }

    /** The moment leaves lost nodes out: a job only a lost one could hold was told "no node can hold it now" without its name. */
    @Test
    void aJobOnlyALostNodeCouldHoldNamesItAndSinceWhen() {
        ActiveJob sixteen = new ActiveJob("j16", "t", JobClass.TRAINING, 1, 16, 16, NOW - 60, null, Contract.defaultFor(JobClass.TRAINING), null, null,
                null, null);
        NodesOut lost = new NodesOut(List.of(new NodesOut.Out(new GpuNode("big", "H100-80GB", 16, 81_559, "big"), true, (NOW - 600) * 1000)));
        StartTimes.Shown shown = BandNotes.shown(new Long[Calibrator.LEVELS.length], new StartBands.Band(startedIn(0), NOW + 86_400, null, 0), null,
                sixteen, moment, StartBands.BEYOND_HOURS, lost);
        assertEquals("no node that takes work now can hold it while big (lost: nothing heard from its agent since " + Instant.ofEpochSecond(NOW - 600)
                + ") is out; it waits until that agent reports again (restart it, or bring the host back)", shown.note());
        assertNull(BandNotes.noNodeHolds(job, moment, lost), "a job a node up can hold is told nothing of the lost one");
    }

    /** Two nodes that only together hold the job, one lost and one awaiting approval: both named, and what brings each back. */
    @Test
    void aJobOnlyNodesOutOfThePlanCouldHoldTogetherNamesThemAll() {
        ActiveJob sixteen = new ActiveJob("j16", "t", JobClass.TRAINING, 1, 16, 16, NOW - 60, null, Contract.defaultFor(JobClass.TRAINING), null, null,
                null, null);
        NodesOut out = new NodesOut(List.of(new NodesOut.Out(new GpuNode("lost-8", "H100-80GB", 8, 81_559, "d"), true, (NOW - 600) * 1000),
                new NodesOut.Out(new GpuNode("new-8", "H100-80GB", 8, 81_559, "d"), false, NOW * 1000)));
        assertEquals("no node that takes work now can hold it while lost-8 (lost: nothing heard from its agent since " + Instant.ofEpochSecond(NOW - 600)
                + "), new-8 (awaiting an admin's approval) are out; it waits until they are back (a lost node when its agent reports again; the others"
                + " when an admin runs ./horizon node approve NAME)", BandNotes.noNodeHolds(sixteen, moment, out));
    }

    @Test
    void aJobThatStartsInNoFutureIsToldThePolicysOwnReason() {
        StartBands.Band raw = new StartBands.Band(startedIn(0), NOW + 86_400, POLICY_SAID, 0);
        StartTimes.Shown shown = BandNotes.shown(new Long[Calibrator.LEVELS.length], raw, null, job, moment, StartBands.BEYOND_HOURS, NodesOut.NONE);
        assertNull(shown.p50At());
        assertTrue(shown.note().startsWith("in 16 of 16 sampled futures it had not started by "), shown.note());
        assertTrue(shown.note().endsWith("the policy's reason was: " + POLICY_SAID), shown.note());
        assertFalse(shown.note().contains("expected to arrive"), "the policy's reason replaces the guess at one: " + shown.note());
    }

    @Test
    void futuresThatStoppedFollowingAJobAreSaidToHaveStoppedNotToHaveReachedTheirEnd() {
        StartBands.Band raw = new StartBands.Band(startedIn(0), NOW + 86_400, POLICY_SAID, 7);
        String note = BandNotes.shown(new Long[Calibrator.LEVELS.length], raw, null, job, moment, StartBands.BEYOND_HOURS, NodesOut.NONE).note();
        assertTrue(note.contains("in 16 of 16 sampled futures it had not started by "), note);
        assertTrue(note.contains("(7 of them were not played on for it once more than half of the futures before had not started it"), note);
        assertTrue(note.endsWith("the policy's reason was: " + POLICY_SAID), note);
    }

    @Test
    void withoutAReasonFromThePolicyTheWorkAheadIsNamed() {
        StartTimes.Shown shown = BandNotes.shown(new Long[Calibrator.LEVELS.length], new StartBands.Band(startedIn(0), NOW + 86_400, null, 0), null, job, moment, StartBands.BEYOND_HOURS, NodesOut.NONE);
        assertTrue(shown.note().endsWith("keep the GPUs it can use busy that long"), shown.note());
    }

    @Test
    void anOpenP90SaysLaterThanWhereTheFuturesEndAndWhy() {
        StartBands.Band raw = new StartBands.Band(startedIn(10), NOW + 86_400, POLICY_SAID, 0);
        StartTimes.Shown shown = BandNotes.shown(new Long[Calibrator.LEVELS.length], raw, null, job, moment, StartBands.BEYOND_HOURS, NodesOut.NONE);
        assertEquals(raw.projected(0.5), shown.p50At(), "the P50 the played-on futures give");
        assertNull(shown.p90At(), "no P90 is invented past where the futures end");
        assertTrue(shown.note().startsWith("with odds 9 in 10 it starts later than "), shown.note());
        assertTrue(shown.note().contains("in 6 of 16 it had not started by then") && shown.note().endsWith(POLICY_SAID), shown.note());
    }

    @Test
    void aJobWithoutABandIsToldWhenItWouldStartWereNoMoreWorkToArriveAheadOfIt() {
        StartBands.Band raw = new StartBands.Band(startedIn(0), NOW + 86_400, POLICY_SAID, 0);
        StartBands.Band alone = new StartBands.Band(startedIn(16), NOW + 86_400, null, 0);
        StartTimes.Shown shown = BandNotes.shown(new Long[Calibrator.LEVELS.length], raw, alone, job, moment, StartBands.BEYOND_HOURS, NodesOut.NONE);
        assertNull(shown.p50At(), "the queue alone is said as a condition, never shown as the band");
        assertTrue(shown.note().endsWith("the policy's reason was: " + POLICY_SAID), shown.note());
        assertEquals(alone.projected(0.5), shown.queueAlone().p50At());
        assertEquals(alone.projected(0.9), shown.queueAlone().p90At());
        assertEquals("were no more work to arrive ahead of it, it would start by " + Instant.ofEpochSecond(alone.projected(0.5))
                + " with odds 1 in 2 and by " + Instant.ofEpochSecond(alone.projected(0.9)) + " with odds 9 in 10 (the queue as it stands, played on"
                + " with the same policy in 16 futures with no work arriving; not calibrated)", shown.queueAlone().said());
    }

    @Test
    void anOpenP90IsToldTheQueueAlonesAnswerToo() {
        StartBands.Band raw = new StartBands.Band(startedIn(10), NOW + 86_400, POLICY_SAID, 0);
        StartTimes.Shown shown = BandNotes.shown(new Long[Calibrator.LEVELS.length], raw, new StartBands.Band(startedIn(12), NOW + 86_400, null, 0), job, moment,
                StartBands.BEYOND_HOURS, NodesOut.NONE);
        assertNull(shown.p90At(), "the queue alone is said as a condition, never shown as the band");
        assertTrue(shown.note().startsWith("with odds 9 in 10 it starts later than "), shown.note());
        assertNull(shown.queueAlone().p90At(), "nor is a P90 invented for the queue alone past where its futures end");
        assertTrue(shown.queueAlone().said().contains("with odds 1 in 2 and with odds 9 in 10 later than where those end (in 4 of 16 it had not started by then)"),
                shown.queueAlone().said());
        StartTimes.QueueAlone never = BandNotes.shown(new Long[Calibrator.LEVELS.length], raw, new StartBands.Band(startedIn(3), NOW + 86_400, null, 0), job, moment,
                StartBands.BEYOND_HOURS, NodesOut.NONE).queueAlone();
        assertNull(never.p50At());
        assertTrue(never.said().startsWith("even were no more work to arrive, it would not start within the futures played in 13 of 16"), never.said());
    }

    @Test
    void aFullBandOrAJobNoNodeCanHoldIsNotToldTheQueueAlone() {
        StartBands.Band alone = new StartBands.Band(startedIn(16), NOW + 86_400, null, 0);
        StartTimes.Shown full = BandNotes.shown(new Long[Calibrator.LEVELS.length], new StartBands.Band(startedIn(16), NOW + 86_400, null, 0), alone, job,
                moment, StartBands.BEYOND_HOURS, NodesOut.NONE);
        assertTrue(full.p90At() != null && full.queueAlone() == null, "a band with a P90 needs no condition beside it");
        ActiveJob wide = new ActiveJob("w", "t", JobClass.TRAINING, 1, 16, 16, NOW - 60, null, Contract.defaultFor(JobClass.TRAINING), null, null, null, null);
        StartTimes.Shown none = BandNotes.shown(new Long[Calibrator.LEVELS.length], new StartBands.Band(startedIn(0), NOW + 86_400, null, 0), alone, wide,
                moment, StartBands.BEYOND_HOURS, NodesOut.NONE);
        assertTrue(none.note().startsWith("no node can hold it now: "), none.note());
        assertNull(none.queueAlone(), "no queue starts a job no node can hold");
    }
}
