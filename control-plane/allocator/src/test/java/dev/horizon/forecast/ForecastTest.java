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
    void theWindowKeepsTheNewestRunsAndAnswersQuantiles() {
        RecentRuns runs = new RecentRuns();
        for (long d = 1; d <= RecentRuns.KEEP + 50; d++) runs.observe(d);
        assertEquals(RecentRuns.KEEP, runs.size(), "only the newest runs are kept");
        assertEquals(51, runs.values().get(0), "the oldest 50 left the window");
        assertEquals(51, runs.quantile(0));
        assertEquals(151, runs.quantile(0.5), "nearest rank, the upper of two at the median");
        assertEquals(231, runs.quantile(0.9));
        assertEquals(250, runs.quantile(1));
        runs.observe(1000);
        assertEquals(52, runs.quantile(0), "a new run replaces the oldest and the quantiles follow");
        assertEquals(1000, runs.quantile(1));
    }

    @Test
    void aRestoredEstimatorEstimatesAsTheOneThatObserved() {
        DurationEstimator observed = new DurationEstimator();
        long[] durations = {500, 100, 900, 300, 700};
        for (long d : durations) observed.observe("nlp", JobClass.TRAINING, d);
        for (long d : new long[] {50, 60, 70}) observed.observe("vision", JobClass.DEBUG, d);
        DurationEstimator restored = new DurationEstimator();
        restored.restore("nlp", JobClass.TRAINING, RecentRuns.of(observed.runs("nlp", JobClass.TRAINING).orElseThrow().values()));
        restored.restore(null, JobClass.DEBUG, RecentRuns.of(java.util.List.of(50L, 60L, 70L)));
        assertEquals(500, restored.estimate("nlp", JobClass.TRAINING, null));
        assertEquals(observed.estimate("nlp", JobClass.TRAINING, null), restored.estimate("nlp", JobClass.TRAINING, null));
        assertEquals(60, restored.estimate("ops", JobClass.DEBUG, null), "a team without runs of its own gets the class's window");
        assertEquals(900, restored.runs("nlp", JobClass.TRAINING).orElseThrow().quantile(0.9));
    }

    @Test
    void theExpectedRunIsTheMeanOfRunsCountedUpToTheCapWhereTheEstimateIsTheMedian() {
        DurationEstimator e = new DurationEstimator();
        // nine quick runs and one of ten hours: the median says a minute, the mean more than an hour
        for (int i = 0; i < 9; i++) e.observe("nlp", JobClass.TRAINING, 60);
        e.observe("nlp", JobClass.TRAINING, 36_000);
        assertEquals(60, e.estimate("nlp", JobClass.TRAINING, null));
        assertEquals((9 * 60 + 36_000) / 10, e.expectedUpTo("nlp", JobClass.TRAINING, null, 86_400));
        assertEquals((9 * 60 + 7_200) / 10, e.expectedUpTo("nlp", JobClass.TRAINING, null, 7_200), "a run counts up to the cap");
        assertEquals(1_800, e.expectedUpTo("nlp", JobClass.TRAINING, 1_800L, 86_400), "a user's estimate wins");
        assertEquals(300, e.expectedUpTo("ops", JobClass.DEBUG, null, 300), "no runs of the class: its default (10 min), up to the cap");
        RecentRuns window = e.runs("nlp", JobClass.TRAINING).orElseThrow();
        assertEquals(3_654.0, window.meanUpTo(86_400));
        window.observe(36_000);
        assertEquals((9 * 60 + 2 * 36_000) / 11.0, window.meanUpTo(86_400), "a new run moves the mean: the one kept for the cap is not read again");
    }

    @Test
    void aJobPastItsEstimateIsExpectedToRunHalfItsAgeAgain() {
        assertEquals(600, DurationEstimator.remaining(1000, 400, 60));
        assertEquals(1000, DurationEstimator.remaining(1000, 2000, 60));
        assertEquals(60, DurationEstimator.remaining(1000, 999, 60));
    }
}
