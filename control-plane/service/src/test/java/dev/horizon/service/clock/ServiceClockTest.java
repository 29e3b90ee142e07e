package dev.horizon.service.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Where a virtual clock starts: the date it is given (the demo day's), else the epoch that replays count from. */
class ServiceClockTest {
    @Test
    void aVirtualClockStartsAtTheGivenDateAndGoesForwardFromIt() {
        ServiceClock clock = new ServiceClock("virtual", Optional.of("2026-09-24T00:00:00Z"));
        assertEquals(Instant.parse("2026-09-24T00:00:00Z").toEpochMilli(), clock.millis());
        clock.advanceTo(clock.millis() + 60_000);
        assertEquals(Instant.parse("2026-09-24T00:01:00Z").getEpochSecond(), clock.seconds());
        assertThrows(IllegalArgumentException.class, () -> clock.advanceTo(0), "never back to the epoch");
    }

    @Test
    void withoutAStartAVirtualClockCountsFromTheEpochAndTheSystemClockIsWallTime() {
        assertEquals(0, new ServiceClock("virtual", Optional.empty()).millis());
        long wall = System.currentTimeMillis();
        assertTrue(Math.abs(new ServiceClock("system", Optional.of("2026-09-24T00:00:00Z")).millis() - wall) < 60_000, "a start moves no wall clock");
    }

    @Test
    void aStartThatIsNotIsoIsRefusedNamingTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ServiceClock("virtual", Optional.of("1790000000")));
        assertTrue(e.getMessage().startsWith("horizon.clock.start must be an ISO-8601 UTC time"), e.getMessage());
    }
}
