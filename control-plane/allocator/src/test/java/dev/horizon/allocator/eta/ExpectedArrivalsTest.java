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
        int draws = 4000, quietHours = 0, jobs = 0;
        for (int k = 0; k < draws; k++) {
            List<ActiveJob> hour = expected.draw(NOW, NOW + 3600, rng, "x-");
            if (hour.isEmpty()) quietHours++;
            else assertTrue(hour.size() % 30 == 0 || hour.get(hour.size() - 1).arrivalSeconds() > NOW + 3600 - 60, "a sweep comes whole: " + hour.size());
            jobs += hour.size();
        }
        // one sweep a day: an hour is quiet with odds exp(-1/24) = 0.96, and 30/24 jobs come per hour on average
        assertEquals(Math.exp(-1 / 24.0), quietHours / (double) draws, 0.015);
        assertEquals(30 / 24.0, jobs / (double) draws, 0.25);
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
