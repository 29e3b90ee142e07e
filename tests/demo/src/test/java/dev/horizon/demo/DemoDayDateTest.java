package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The date the demo's virtual clock starts on: the trace's day on this year's calendar, or today with the generator. */
class DemoDayDateTest {
    private static DemoDay from(LocalDate traceDay) {
        return new DemoDay(null, List.of(), null, "a test", traceDay);
    }

    @Test
    void theTracesDayIsShownOnThisYearsCalendarAtMidnightUtc() {
        LocalDate today = LocalDate.of(2026, 12, 3);
        assertEquals(Instant.parse("2026-10-09T00:00:00Z"), from(LocalDate.of(2017, 10, 9)).clockStart(today));
        assertEquals("the trace's 2017-10-09, shown on this year's calendar as 2026-10-09", from(LocalDate.of(2017, 10, 9)).dateWords(today));
        assertEquals(Instant.parse("2027-02-28T00:00:00Z"), from(LocalDate.of(2016, 2, 29)).clockStart(LocalDate.of(2027, 1, 1)), "no 29 February");
    }

    @Test
    void theGeneratorsDayIsToday() {
        assertEquals(Instant.parse("2026-12-03T00:00:00Z"), from(null).clockStart(LocalDate.of(2026, 12, 3)));
    }
}
