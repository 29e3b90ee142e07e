package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecalibrationTest {
    private static final double[] LEVELS = {0.5, 0.9};

    /** n bands that each said a wait of 600 s at both levels; the waits seen were 600 s x k/n for k in 1..n, times scale. */
    private static List<Recalibration.Outcome> outcomes(int n, double scale) {
        List<Recalibration.Outcome> out = new ArrayList<>();
        for (int k = 1; k <= n; k++) {
            double seen = scale * (600 + Recalibration.SLACK_SECONDS) * k / n - Recalibration.SLACK_SECONDS;
            out.add(new Recalibration.Outcome(new double[] {600, 600}, seen, true));
        }
        return out;
    }

    @Test
    void bandsThatCameTrueTooRarelyAreStretchedUntilTheyWould() {
        // waits seen run up to 2x what was said: the median of the ratio is ~1, its 90th percentile ~1.8
        Recalibration r = Recalibration.of(LEVELS, outcomes(100, 2));
        assertEquals(1.0, r.factors()[0], 0.03);
        assertEquals(1.8, r.factors()[1], 0.03);
        assertEquals(1000 + Math.round(1.8 * 660 - 60), r.at(1, 1000, 1600L), 25);
    }

    @Test
    void aJobStillWaitingCountsAsLaterThanItsBandSaid() {
        List<Recalibration.Outcome> o = outcomes(100, 1);
        // half the jobs have not started and already waited 3x what was said: at least half the ratios are above 3
        for (int i = 0; i < 100; i++) o.add(new Recalibration.Outcome(new double[] {600, 600}, 3 * 660 - 60, false));
        Recalibration r = Recalibration.of(LEVELS, o);
        assertEquals(3.0, r.factors()[1], 1e-9, "the 90th percentile lies among the censored ratios");
    }

    @Test
    void fewOutcomesLeaveTheBandsAsTheyAre() {
        Recalibration r = Recalibration.of(LEVELS, outcomes(Recalibration.MIN_OUTCOMES - 1, 3));
        assertEquals(1.0, r.factors()[1]);
        assertEquals(1600L, r.at(1, 1000, 1600L));
    }
}
