package dev.horizon.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimJob;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The demo's day carries what its teams submitted the day before, made as the day's own jobs are, for the bench's calibration. */
class DemoDayPriorArrivalsTest {
    @Test
    void theDayBeforeHasTheDaysKindsOfWorkAndNoneOfItsJobs() throws Exception {
        Scenario day = DemoDayScenario.build(2, Path.of("no-traces-here"), DemoDayScenario.AS_TRANSLATED).scenario();
        int jobs = day.jobs().size();
        assertEquals(jobs, day.priorArrivals().size(), 0.35 * jobs, "the day before arrives at the day's rate");
        for (SimJob j : day.priorArrivals()) assertTrue(j.arrivalSeconds() >= -86_400 && j.arrivalSeconds() < 0, j.id() + " at " + j.arrivalSeconds());
        Set<String> ids = day.jobs().stream().map(SimJob::id).collect(Collectors.toSet());
        assertTrue(day.priorArrivals().stream().noneMatch(j -> ids.contains(j.id())), "the day before's jobs are not the day's");
        assertTrue(day.priorArrivals().stream().anyMatch(j -> j.slice() != null), "slices and shares as the day has them");
        assertTrue(day.priorArrivals().stream().anyMatch(j -> j.id().startsWith("prior-debug-")), "and its debug sessions");
        assertEquals(day.jobs(), DemoDayScenario.build(2, Path.of("no-traces-here"), DemoDayScenario.AS_TRANSLATED).scenario().jobs(), "seeded");
    }
}
