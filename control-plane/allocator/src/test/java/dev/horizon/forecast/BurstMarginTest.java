package dev.horizon.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BurstMarginTest {
    @Test
    void aSteadyServiceHoldsItsRecentPeakAndABurstyOneTheMarginItsBurstsNeeded() {
        BurstMargin sizing = new BurstMargin(15, 0.99);
        double[] steady = new double[600];
        java.util.Arrays.fill(steady, 3.2);
        assertEquals(4, sizing.gpus(steady), "no rise ever: the recent peak, rounded up");
        double[] bursty = steady.clone();
        for (int i = 20; i < bursty.length; i += 20) bursty[i] = 9.0; // a burst of 5.8 above the quarter hour before, 5% of minutes
        int held = sizing.gpus(java.util.Arrays.copyOf(bursty, 599));
        assertTrue(held >= 9, "bursts in 5% of minutes are above the 99% quantile's cut: " + held);
        assertEquals(0, sizing.gpus(new double[0]));
    }
}
