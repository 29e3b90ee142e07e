package dev.horizon.forecast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobClass;
import org.junit.jupiter.api.Test;

class ForecastTest {
    @Test
    void forecastFollowsTheDailyShapeAndRecalibratesToABusierDay() {
        DemandForecaster f = new DemandForecaster(24, 7);
        for (int day = 0; day < 7; day++) for (int h = 0; h < 24; h++) f.observe(h >= 12 && h < 16 ? 10 : 1);
        double[] next = f.forecast(24);
        assertTrue(next[13] >= 10, "the afternoon peak is expected again");
        assertTrue(next[3] < 3, "the night trough is expected again");
        for (int h = 0; h < 8; h++) f.observe(2); // a morning twice as busy as usual
        double[] busier = f.forecast(16);
        assertTrue(busier[5] >= 19, "the peak is scaled by today's level: " + busier[5]);
    }

    @Test
    void estimatesComeFromHistoryThenTheClassThenADefault() {
        DurationEstimator e = new DurationEstimator();
        assertEquals(DurationEstimator.classDefaultSeconds(JobClass.TRAINING), e.estimate("nlp", JobClass.TRAINING, null));
        for (long d : new long[] {100, 200, 300}) e.observe("vision", JobClass.TRAINING, d);
        assertEquals(200, e.estimate("nlp", JobClass.TRAINING, null), "falls back to the class's median");
        for (long d : new long[] {1000, 2000, 3000}) e.observe("nlp", JobClass.TRAINING, d);
        assertEquals(2000, e.estimate("nlp", JobClass.TRAINING, null));
        assertEquals(42, e.estimate("nlp", JobClass.TRAINING, 42L), "a user's estimate wins");
    }

    @Test
    void aJobPastItsEstimateIsExpectedToRunHalfItsAgeAgain() {
        assertEquals(600, DurationEstimator.remaining(1000, 400, 60));
        assertEquals(1000, DurationEstimator.remaining(1000, 2000, 60));
        assertEquals(60, DurationEstimator.remaining(1000, 999, 60));
    }
}
