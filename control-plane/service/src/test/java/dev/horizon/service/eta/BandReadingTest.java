package dev.horizon.service.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.eta.Calibrator;
import dev.horizon.allocator.eta.LikeArrivals;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.service.jobs.StartOutlook;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How every view reads a band at the moment it is asked for: never before now, never stale, the plan's start explained. */
class BandReadingTest {
    private static final long AT = 100_000;
    private static final Calibrator.Learnt AS_SAMPLED = new Calibrator().learnt();
    /** Sixteen futures: the job starts 10, 20, ..., 160 minutes after the bands were computed. */
    private static final StartBands.Band RAW = new StartBands.Band(minutes(16), AT + 86_400, null, 0);

    private static long[] minutes(int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) out[i] = AT + 600L * (i + 1);
        return out;
    }

    private static StartTimes.Snapshot leader(StartTimes.Shown shown) {
        return new StartTimes.Snapshot(AT, Map.of("j", shown), Map.of("j", RAW), AS_SAMPLED, LikeArrivals.NONE);
    }

    @Test
    void aBandIsNeverShownBeforeNowNorItsP90BeforeItsP50() {
        StartTimes.Snapshot s = leader(new StartTimes.Shown(AT + 600, AT + 900, null));
        BandReading.Read read = BandReading.read(s, "j", AT + 650, null);
        assertFalse(read.stale(), "within a minute of its P50 the band still stands");
        assertEquals(AT + 650, read.band().p50At());
        assertEquals(AT + 900, read.band().p90At());
    }

    @Test
    void aBandWhosePassedIsReadAgainFromTheFuturesNotStartedByNow() {
        StartTimes.Snapshot s = leader(new StartTimes.Shown(AT + 4800, AT + 8400, null));
        long now = AT + 5400; // 90 min on: 9 of the 16 futures had started it
        BandReading.Read read = BandReading.read(s, "j", now, null);
        assertTrue(read.stale(), "fresh bands are asked for");
        StartOutlook.Band b = read.band();
        assertEquals(AT + 600L * 13, b.p50At(), "the median of the 7 futures left (100 .. 160 min) by nearest rank: 130 min");
        assertEquals(AT + 600L * 16, b.p90At());
        assertTrue(b.note().contains("passed without a start") && b.note().contains("7 of 16"), b.note());
    }

    @Test
    void withTooFewFuturesLeftOrOnAFollowerNoStaleBandIsShown() {
        StartTimes.Snapshot s = leader(new StartTimes.Shown(AT + 4800, AT + 8400, null));
        BandReading.Read late = BandReading.read(s, "j", AT + 8000, null);
        assertNull(late.band().p50At(), "3 futures left cannot say");
        assertTrue(late.stale() && late.band().note().contains("fresh bands come with the next plan"), late.band().note());
        StartTimes.Snapshot stored = StartTimes.Snapshot.stored(AT, Map.of("j", new StartTimes.Shown(AT + 4800, AT + 8400, null)));
        BandReading.Read follower = BandReading.read(stored, "j", AT + 5400, null);
        assertNull(follower.band().p50At(), "a follower has no futures to read it again from");
    }

    @Test
    void aPlannedStartOutsideTheBandIsExplained() {
        StartTimes.Snapshot s = leader(new StartTimes.Shown(AT + 4800, AT + 8400, null));
        String early = BandReading.read(s, "j", AT, AT + 600).band().note();
        assertTrue(early.contains("before its P50") && early.contains("expected to arrive"), early);
        String late = BandReading.read(s, "j", AT, AT + 9000).band().note();
        assertTrue(late.contains("after its P90") && late.contains("ended sooner"), late);
        assertNull(BandReading.read(s, "j", AT, AT + 6000).band().note(), "inside the band there is nothing to explain");
    }

    @Test
    void aPlannedStartOutsideTheQueueAlonesIsExplainedForAJobWithNoBand() {
        StartTimes.QueueAlone alone = new StartTimes.QueueAlone(AT + 6000, AT + 9000, "were no more work to arrive ahead of it, it would start by ...");
        StartTimes.Snapshot s = leader(new StartTimes.Shown(null, null, "in 16 of 16 sampled futures it had not started", alone));
        String early = BandReading.read(s, "j", AT, AT + 600).band().note();
        assertTrue(early.contains("before the queue alone's P50") && early.contains("no work arriving"), early);
        String late = BandReading.read(s, "j", AT, AT + 9600).band().note();
        assertTrue(late.contains("after the queue alone's P90") && late.contains("ended sooner"), late);
        assertEquals("in 16 of 16 sampled futures it had not started; " + alone.said(), BandReading.read(s, "j", AT, AT + 7000).band().note(),
                "inside the queue alone's start there is nothing to explain");
    }

    @Test
    void aPlannedStartForAJobMostFuturesNeverStartedIsExplained() {
        StartTimes.QueueAlone never = new StartTimes.QueueAlone(null, null, "even were no more work to arrive, it would not start within the futures played in 4 of 4");
        long[] starts = new long[12];
        Arrays.fill(starts, Long.MAX_VALUE);
        starts[0] = AT + 600;
        StartBands.Band elevenOfTwelve = new StartBands.Band(starts, AT + 86_400, null, 0);
        StartTimes.Snapshot s = new StartTimes.Snapshot(AT, Map.of("j", new StartTimes.Shown(null, null, "in 11 of 12 sampled futures it had not started", never)),
                Map.of("j", elevenOfTwelve), AS_SAMPLED, LikeArrivals.NONE);
        String note = BandReading.read(s, "j", AT, AT + 4500).band().note();
        assertTrue(note.startsWith("in 11 of 12 sampled futures it had not started; " + never.said() + "; the plan starts it at "), note);
        assertTrue(note.contains("yet most sampled futures, even with no work arriving, did not start it") && note.contains("make the plan again as runs end"), note);
        StartTimes.Snapshot unplayed = new StartTimes.Snapshot(AT, Map.of("j", new StartTimes.Shown(null, null, "in 11 of 12 sampled futures it had not started")),
                Map.of("j", elevenOfTwelve), AS_SAMPLED, LikeArrivals.NONE);
        String withoutAlone = BandReading.read(unplayed, "j", AT, AT + 4500).band().note();
        assertTrue(withoutAlone.contains("yet most sampled futures did not start it"), withoutAlone);
        assertEquals("in 11 of 12 sampled futures it had not started; " + never.said(), BandReading.read(s, "j", AT, null).band().note(),
                "without a planned start there is nothing to reconcile");
        // a band whose time passed, with too few futures left to read it again, is no sign that the futures never started it
        String passed = BandReading.read(leader(new StartTimes.Shown(AT + 4800, AT + 8400, null)), "j", AT + 8000, AT + 9000).band().note();
        assertFalse(passed.contains("did not start it"), passed);
    }

    @Test
    void aJobThatCameAfterTheLatestBandsSaysWhenItGetsOne() {
        StartOutlook.Band b = BandReading.read(leader(new StartTimes.Shown(AT + 600, AT + 900, null)), "newcomer", AT + 5, null).band();
        assertNull(b.p50At());
        assertTrue(b.note().startsWith("no band yet"), b.note());
        assertNull(BandReading.read(StartTimes.Snapshot.NONE, "j", AT, null).band(), "bands off: no band and nothing to say");
    }

    @Test
    void theQueueAlonesStartIsReadLikeABandAndSaidNoMoreOnceItHasPassed() {
        StartTimes.QueueAlone alone = new StartTimes.QueueAlone(AT + 1200, AT + 3000, "were no more work to arrive ahead of it, it would start by ...");
        StartTimes.Snapshot s = leader(new StartTimes.Shown(null, null, "in 16 of 16 sampled futures it had not started", alone));
        BandReading.Read read = BandReading.read(s, "j", AT + 1250, null);
        assertFalse(read.stale(), "within a minute of its P50 it still stands");
        assertEquals(AT + 1250, read.band().queueAloneP50At(), "never before now");
        assertEquals(AT + 3000, read.band().queueAloneP90At());
        assertNull(read.band().p50At(), "a condition, not the band");
        assertEquals("in 16 of 16 sampled futures it had not started; " + alone.said(), read.band().note());
        BandReading.Read passed = BandReading.read(s, "j", AT + 1300, null);
        assertTrue(passed.stale(), "a start that has passed asks for fresh bands, as a band's does");
        assertNull(passed.band().queueAloneP50At());
        assertEquals("in 16 of 16 sampled futures it had not started", passed.band().note(), "and it is said no more");
    }
}
