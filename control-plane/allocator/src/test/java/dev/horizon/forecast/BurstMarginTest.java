package dev.horizon.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BurstMarginTest {
    @Test
    void aSteadyServiceHoldsItsRecentPeakAndABurstyOneTheMarginItsBurstsNeeded() {
        BurstMargin sizing = new BurstMargin(0.99);
        double[] steady = new double[600];
        java.util.Arrays.fill(steady, 3.2);
        assertEquals(4, sizing.gpus(steady), "no rise ever: the recent peak, rounded up");
        double[] bursty = steady.clone();
        for (int i = 20; i < bursty.length; i += 20) bursty[i] = 9.0; // a burst of 5.8 above the quarter hour before, 5% of minutes
        int held = sizing.gpus(java.util.Arrays.copyOf(bursty, 599));
        assertTrue(held >= 9, "bursts in 5% of minutes are above the 99% quantile's cut: " + held);
        assertEquals(0, sizing.gpus(new double[0]));
    }

    @Test
    void aServiceThatSwingsInProportionToItsLevelGetsAFactorNotAFixedMargin() {
        BurstMargin sizing = new BurstMargin(0.99);
        double[] swings = new double[1440];
        // a daily ramp from 2 to 40 GPUs; each minute 10% above the one before it at most
        for (int i = 0; i < swings.length; i++) swings[i] = 2 + 38 * Math.sin(Math.PI * i / swings.length) * (i % 7 == 0 ? 1.1 : 1.0);
        double[] quiet = java.util.Arrays.copyOf(swings, 1439);
        quiet[1438] = 2.0;
        java.util.Arrays.fill(quiet, 1420, 1439, 2.0);
        int held = sizing.gpus(quiet);
        assertTrue(held <= 3, "at a level of 2 a factor of about 1.1 holds 3, a margin sized at 40 GPUs would hold far more: " + held);
    }
}
