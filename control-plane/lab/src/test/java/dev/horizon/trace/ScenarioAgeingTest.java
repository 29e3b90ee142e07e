package dev.horizon.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.horizon.simulation.Scenario;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** --age-doubling-hours: the demo's day ages as the demo's cluster does unless told otherwise; 0 turns it off anywhere. */
class ScenarioAgeingTest {
    private static Scenario build(String name, Integer hours) throws Exception {
        return Scenarios.build(name, new ScenarioOptions(1, null, null, 1.5, 0.4, 0, Path.of("no-traces-here"), null, null, hours));
    }

    @Test
    void theDemosDayAgesEveryTwelveHoursUnlessToldOtherwise() throws Exception {
        assertEquals(DemoDayScenario.AGE_DOUBLING_HOURS * 3600L, build(DemoDayScenario.NAME, null).budgets().ageDoublingSeconds());
        Scenario off = build(DemoDayScenario.NAME, 0);
        assertEquals(0, off.budgets().ageDoublingSeconds());
        assertEquals(0, off.description().get("ageDoublingHours"));
        assertEquals(6 * 3600L, build(DemoDayScenario.NAME, 6).budgets().ageDoublingSeconds());
        assertEquals(0, build("fairshare", null).budgets().ageDoublingSeconds(), "off unless a cluster sets it");
        assertNull(build("mixed", 0).budgets(), "off needs no budgets");
    }
}
