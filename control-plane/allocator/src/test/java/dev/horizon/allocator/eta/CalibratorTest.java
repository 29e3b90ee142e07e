package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CalibratorTest {
    /** A raw band that says the job starts wait seconds after at, in every future. */
    private static StartBands.Band says(long at, long wait) {
        long[] starts = new long[StartBands.SAMPLES];
        Arrays.fill(starts, at + wait);
        return new StartBands.Band(starts, Long.MAX_VALUE, null, 0);
    }

    @Test
    void bandsFedOutcomesOfAKnownDistributionComeTrueAtTheirLevels() {
        // every raw band says 1,000 s; real waits are exponential with a mean of 3,000 s (only 28% start by 1,000 s)
        Calibrator c = new Calibrator();
        Random rng = new Random(3);
        record Start(long at, String id) {
        }
        PriorityQueue<Start> starts = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
        int jobs = 6000, measuredFrom = 3000;
        long[] start = new long[jobs];
        Long[][] shown = new Long[jobs][];
        for (int k = 0; k < jobs; k++) {
            long now = 100L * k;
            while (!starts.isEmpty() && starts.peek().at() <= now) {
                Start s = starts.poll();
                c.started(s.id(), s.at());
            }
            shown[k] = c.shown("j" + k, now, says(now, 1000));
            start[k] = now + Math.round(-3000 * Math.log(1 - rng.nextDouble()));
            starts.add(new Start(start[k], "j" + k));
        }
        for (int i = 0; i < Calibrator.LEVELS.length; i++) {
            int hits = 0;
            for (int k = measuredFrom; k < jobs; k++) if (start[k] <= shown[k][i]) hits++;
            double coverage = hits / (double) (jobs - measuredFrom);
            assertEquals(Calibrator.LEVELS[i], coverage, 0.04, "level " + Calibrator.LEVELS[i] + ": coverage " + coverage);
        }
    }

    @Test
    void aResumedCalibratorShowsWhatTheOneBeforeHadLearnt() {
        Calibrator before = new Calibrator();
        for (int k = 0; k < 200; k++) {
            before.shown("j" + k, 100L * k, says(100L * k, 600));
            before.started("j" + k, 100L * k + 2400); // every job waited four times what its band said
        }
        Calibrator resumed = new Calibrator();
        resumed.resume(before.learnt());
        assertArrayEquals(before.shown("next", 40_000, says(40_000, 600)), resumed.shown("next", 40_000, says(40_000, 600)));
        assertTrue(resumed.factor(Calibrator.P50) > 2, "P50 factor " + resumed.factor(Calibrator.P50));
        assertEquals(before.outcomes(Calibrator.P50), resumed.outcomes(Calibrator.P50));
        double[] wild = new double[Calibrator.LEVELS.length];
        Arrays.fill(wild, 50);
        wild[0] = Double.NaN;
        resumed.resume(new Calibrator.Learnt(wild, new int[Calibrator.LEVELS.length]));
        assertEquals(1, resumed.factor(0), 1e-12, "a factor that is not a number starts afresh");
        assertEquals(Calibrator.MAX_FACTOR, resumed.factor(Calibrator.P50), 1e-9, "a stored factor is kept within its bounds");
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new Calibrator.Learnt(new double[3], new int[3]));
        assertTrue(e.getMessage().contains("one factor and one count per level: 9 of each (got 3 and 3)"), e.getMessage());
    }

    @Test
    void aJobThatNeverStartsOnlyPushesLaterBandsLater() {
        Calibrator c = new Calibrator();
        Long[] before = c.shown("waits-forever", 0, says(0, 1000));
        Long[] previous = before;
        for (long t = 600; t <= 4000; t += 600) {
            Long[] now = c.shown("probe-" + t, t, says(t, 1000));
            for (int i = 0; i < now.length; i++) {
                long wait = now[i] - t, earlier = previous[i] - (t - 600);
                assertTrue(wait >= earlier, "level " + Calibrator.LEVELS[i] + " at " + t + ": " + wait + " s, before " + earlier + " s");
            }
            previous = now;
        }
        for (int i = 0; i < before.length; i++) assertTrue(previous[i] - 3600 > before[i], "level " + Calibrator.LEVELS[i] + " moved later");
    }

    @Test
    void aCancelledJobsBandTeachesNothing() {
        Calibrator c = new Calibrator();
        c.shown("cancelled", 0, says(0, 1000));
        c.dropped("cancelled");
        Long[] later = c.shown("probe", 4000, says(4000, 1000));
        for (int i = 0; i < later.length; i++) {
            assertEquals(1.0, c.factor(i), 1e-12, "level " + Calibrator.LEVELS[i] + " learnt nothing from a band whose outcome is unknown");
            assertEquals(0, c.outcomes(i));
        }
    }

    @Test
    void nothingAfterTheMomentMovesABandShownAtIt() {
        Calibrator fresh = new Calibrator(), followed = new Calibrator();
        Long[] first = followed.shown("a", 0, says(0, 1000));
        fresh.shown("a", 0, says(0, 1000));
        // at 500 s nothing is known of a's band yet (its P10 falls after 500 s): the same band as with no history
        assertArrayEquals(new Calibrator().shown("b", 500, says(500, 1000)), followed.shown("b", 500, says(500, 1000)));
        // a starts at 700 s, by every level of its band: only bands shown after that learn from it, earlier
        followed.started("a", 700);
        Long[] afterStart = followed.shown("c", 800, says(800, 1000));
        Long[] unknown = fresh.shown("c", 800, says(800, 1000));
        for (int i = 0; i < first.length; i++) {
            assertTrue(first[i] >= 700, "a's band said no earlier than 700 s at level " + Calibrator.LEVELS[i]);
            assertTrue(afterStart[i] < unknown[i], "level " + Calibrator.LEVELS[i] + ": " + afterStart[i] + " vs " + unknown[i]);
        }
    }

    @Test
    void aBandBeyondTheHorizonThatCameTrueEarlyPullsTheNextBandsEarlier() {
        long[] never = new long[StartBands.SAMPLES];
        Arrays.fill(never, Long.MAX_VALUE);
        Calibrator c = new Calibrator();
        Long[] far = c.shown("far", 0, new StartBands.Band(never, Long.MAX_VALUE, null, 0));
        for (Long l : far) assertEquals(null, l, "beyond the horizon at every level");
        c.started("far", 500);
        Long[] next = c.shown("next", 600, says(600, 1000)), unknown = new Calibrator().shown("next", 600, says(600, 1000));
        for (int i = 0; i < next.length; i++) assertTrue(next[i] < unknown[i], "level " + Calibrator.LEVELS[i] + ": " + next[i] + " vs " + unknown[i]);
    }

    @Test
    void aLongRunOfEarlyStartsLeavesTheFactorWithinItsBounds() {
        Calibrator c = new Calibrator();
        for (int k = 0; k < 2000; k++) {
            c.shown("j" + k, 10L * k, says(10L * k, 1000));
            c.started("j" + k, 10L * k);
        }
        for (int i = 0; i < Calibrator.LEVELS.length; i++) {
            assertTrue(c.factor(i) >= 1 / Calibrator.MAX_FACTOR - 1e-9, "level " + Calibrator.LEVELS[i] + ": factor " + c.factor(i));
            assertEquals(2000, c.outcomes(i));
        }
    }
}
