package dev.horizon.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class QuietTimeMarginTest {
    /** A missed minute worth 256 GPU-minutes: a margin held in every minute of a day (1440 GPU-minutes) is worth it where it saves six misses. */
    private static final double PRICE = 256;

    @Test
    void aSteadyServiceHoldsItsRecentPeakAndABurstyOneTheMarginItsBurstsNeeded() {
        QuietTimeMargin sizing = new QuietTimeMargin(PRICE);
        double[] steady = new double[600];
        Arrays.fill(steady, 3.2);
        assertEquals(4, sizing.gpus(steady), "no rise ever: the recent peak, rounded up");
        double[] bursty = steady.clone();
        for (int i = 20; i < bursty.length; i += 20) bursty[i] = 9.0; // 5.8 above the minutes before, in 5% of minutes
        int held = sizing.gpus(Arrays.copyOf(bursty, 599));
        assertTrue(held >= 9, "bursts in 5% of minutes cost far more missed minutes than the GPUs that meet them: " + held);
        assertEquals(0, sizing.gpus(new double[0]));
    }

    @Test
    void aServiceThatSwingsInProportionToItsLevelGetsAFactorNotAFixedMargin() {
        QuietTimeMargin sizing = new QuietTimeMargin(PRICE);
        double[] swings = new double[1440];
        // a daily ramp from 2 to 40 GPUs; each 7th minute 10% above the ones around it
        for (int i = 0; i < swings.length; i++) swings[i] = 2 + 38 * Math.sin(Math.PI * i / swings.length) * (i % 7 == 0 ? 1.1 : 1.0);
        double[] quiet = Arrays.copyOf(swings, 1439);
        Arrays.fill(quiet, 1420, 1439, 2.0);
        int held = sizing.gpus(quiet);
        assertTrue(held <= 3, "at a level of 2 a factor of about 1.1 holds 3, a margin sized at 40 GPUs would hold far more: " + held);
    }

    /**
     * Bursts of 2 GPUs come 10 minutes after the one before, all day; once a lull is hours long none comes. Ten minutes
     * into a lull the rule holds the burst's GPUs, hours into one nothing: one margin for every quiet minute would hold
     * the same in both.
     */
    @Test
    void aLullOfHoursHoldsNothingWhereTheMinutesABurstUsuallyFollowsHoldItsGpus() {
        QuietTimeMargin sizing = new QuietTimeMargin(PRICE);
        double[] day = new double[1440];
        for (int i = 0; i < 1000; i += 11) day[i] = 2.0; // a burst, then 10 quiet minutes
        // minute 1000 on is one long lull: 440 quiet minutes, none followed by a burst
        double[] tenMinutesIn = Arrays.copyOf(day, 990 + 1 + 10); // the last burst at minute 990, then ten quiet minutes
        assertEquals(2, sizing.gpus(tenMinutesIn), "ten minutes into a lull the next burst is due: hold its 2 GPUs");
        assertEquals(0, sizing.gpus(day), "hours into a lull no burst has ever come: hold nothing");
    }

    /**
     * Demand climbs a GPU a minute, in ramps from 0 to 8, all day. GPUs the rule grows by serve a minute late, so a climb
     * of one a minute is covered only by holding two above the busiest recent minute (one above it would meet every
     * minute if grown GPUs served at once).
     */
    @Test
    void aRiseIsSizedAMinuteAheadBecauseTheGpusItGrowsByServeAMinuteLate() {
        QuietTimeMargin sizing = new QuietTimeMargin(PRICE);
        double[] ramps = new double[1440];
        for (int i = 0; i < ramps.length; i++) ramps[i] = i % 12 < 9 ? i % 12 : 0; // 0, 1, ... 8, then three quiet minutes
        int lastAtFive = 1440 - 1440 % 12 - 12 + 5; // the last ramp's minute at 5 GPUs
        assertEquals(7, sizing.gpus(Arrays.copyOf(ramps, lastAtFive + 1)), "at 5 GPUs and climbing: 5 + 2");
    }
}
