package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ExpectedArrivalsTest {
    private static final long NOW = 200_000;
    private static final long DAY = 86_400;

    private static ActiveJob arrived(String id, long at) {
        return new ActiveJob(id, "sweep", JobClass.TRAINING, 1, 1, 1, at, null, Contract.defaultFor(JobClass.TRAINING), null, null, null, null);
    }

    @Test
    void aSweepSeenOnceADayIsExpectedAsOneSweepADayNotAsThirtyArrivalsADay() {
        // thirty jobs submitted within a minute, two hours ago, and nothing else over the day
        List<ActiveJob> recent = new ArrayList<>();
        for (int i = 0; i < 30; i++) recent.add(arrived("s" + i, NOW - 7200 + 2 * i));
        ExpectedArrivals expected = new ExpectedArrivals(recent, ExpectedArrivals.WINDOW_SECONDS);
        Random rng = new Random(5);
        int draws = 4000, quietDays = 0, jobs = 0;
        for (int k = 0; k < draws; k++) {
            List<ActiveJob> day = expected.draw(NOW, NOW + DAY, rng, "x-");
            if (day.isEmpty()) quietDays++;
            else assertTrue(day.size() % 30 == 0 || day.get(day.size() - 1).arrivalSeconds() > NOW + DAY - 60, "a sweep comes whole: " + day.size());
            jobs += day.size();
        }
        // one sweep a day: a day is quiet with odds exp(-1) = 0.37, and 30 jobs come a day on average
        assertEquals(Math.exp(-1), quietDays / (double) draws, 0.025);
        assertEquals(30, jobs / (double) draws, 1.5);
    }

    @Test
    void sweepsThatCameByDayAreExpectedByDayAndTheNightStaysQuiet() {
        // yesterday's record: a sweep of ten every hour from 09:00 to 17:00, nothing at night; now is 20:00
        long midnight = 10 * DAY;
        long now = midnight + 20 * 3600;
        List<ActiveJob> recent = new ArrayList<>();
        for (int h = 9; h <= 17; h++) for (int i = 0; i < 10; i++) recent.add(arrived("h" + h + "-" + i, midnight + h * 3600 + 10 * i));
        ExpectedArrivals expected = ExpectedArrivals.overTheLastDay(recent, now, false);
        Random rng = new Random(7);
        int draws = 2000;
        long night = 0, workday = 0, all = 0;
        for (int k = 0; k < draws; k++) {
            for (ActiveJob j : expected.draw(now, now + 2 * DAY, rng, "x-")) {
                long hour = Math.floorMod(j.arrivalSeconds(), DAY) / 3600;
                if (hour >= 23 || hour < 5) night++;
                if (hour >= 9 && hour < 18) workday++;
                all++;
            }
        }
        // as many a day as at a flat rate (90 jobs a day, two days)
        assertEquals(180, all / (double) draws, 6);
        // a flat rate would bring a quarter of them between 23:00 and 05:00, and three eighths within 09:00-18:00
        assertTrue(night < 0.02 * all, "the night is quiet: " + night + " of " + all);
        assertTrue(workday > 0.75 * all, "the working day brings most: " + workday + " of " + all);
    }

    @Test
    void aRecordCutShortByTheStoresCapIsReadAtAFlatRateOverWhatItCovers() {
        // the store returned only its cap: the six hours it covers were busy, the hours it lost say nothing
        long now = 10 * DAY + 20 * 3600;
        List<ActiveJob> recent = new ArrayList<>();
        for (int h = 1; h <= 6; h++) recent.add(arrived("h" + h, now - h * 3600));
        ExpectedArrivals expected = ExpectedArrivals.overTheLastDay(recent, now, true);
        Random rng = new Random(9);
        int draws = 4000, night = 0, all = 0;
        for (int k = 0; k < draws; k++) {
            for (ActiveJob j : expected.draw(now, now + DAY, rng, "x-")) {
                long hour = Math.floorMod(j.arrivalSeconds(), DAY) / 3600;
                if (hour >= 2 && hour < 8) night++;
                all++;
            }
        }
        // six bursts over 6 h (of a span of 6 h): 24 a day, a quarter of them in the six hours 02:00-08:00
        assertEquals(24, all / (double) draws, 0.5);
        assertEquals(0.25, night / (double) all, 0.02);
    }

    @Test
    void aClusterAnHourOldReadsItsFirstSweepAsTheDaysOnlyOne() {
        // the same sweep, an hour after anything was known: it is not taken for a sweep an hour
        List<ActiveJob> recent = new ArrayList<>();
        for (int i = 0; i < 30; i++) recent.add(arrived("s" + i, NOW - 3600 + 2 * i));
        assertEquals(ExpectedArrivals.WINDOW_SECONDS, ExpectedArrivals.overTheLastDay(recent, NOW, false).spanSeconds());
        // a store that returned only its cap speaks for the span those arrivals cover
        assertEquals(3600, ExpectedArrivals.overTheLastDay(recent, NOW, true).spanSeconds());
        assertEquals(ExpectedArrivals.WINDOW_SECONDS, ExpectedArrivals.overTheLastDay(List.of(), NOW, true).spanSeconds());
    }
}
