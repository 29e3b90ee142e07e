package dev.horizon.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

/** A Philly window's prior arrivals: the day before's submissions, drawn at the share of the window's that its jobs are. */
class PhillyPriorArrivalsTest {
    @Test
    void theDayBeforeArrivesAtTheWindowsShare() throws Exception {
        Path traces = dev.horizon.bench.PhillyBenchTest.traces();
        Path log = traces.resolve("philly-via-pollux/philly.csv");
        assumeTrue(Files.isRegularFile(log), "needs ../shared/traces");
        Scenario s = Scenarios.build("philly", new ScenarioOptions(1, null, null, 1.5, 0.4, 10, traces));
        LocalDateTime start = LocalDateTime.parse((String) s.description().get("windowStart"));
        long dayBefore = PhillyTrace.read(log).stream().filter(r -> r.durationSeconds() > 0 && r.gpus() >= 1 && r.gpus() <= 64)
                .filter(r -> !r.submitted().isBefore(start.minusDays(1)) && r.submitted().isBefore(start)).count();
        double share = s.jobs().size() / (double) (int) s.description().get("jobsInWindow");
        assertTrue(share < 0.9 && dayBefore > 100, "a window the load thins, after a busy day: share " + share + ", " + dayBefore + " the day before");
        double expected = share * dayBefore;
        assertEquals(expected, s.priorArrivals().size(), 4 * Math.sqrt(expected), "drawn at the window's share of " + dayBefore);
        for (SimJob j : s.priorArrivals()) assertTrue(j.arrivalSeconds() >= -86_400 && j.arrivalSeconds() < 0, j.id() + " at " + j.arrivalSeconds());
        assertEquals(s.priorArrivals().size(), s.description().get("priorArrivals"));
    }
}
