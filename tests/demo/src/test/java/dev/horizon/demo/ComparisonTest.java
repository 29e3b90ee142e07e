package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.simulation.PolicyMetrics;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComparisonTest {
    @Test
    void theTerminalLineNamesTheTeamItsBudgetServedLeast() {
        PolicyMetrics.FairShare slurmLike = new PolicyMetrics.FairShare(Map.of("nlp", 0.61, "vision", 1.7, "applied", 0.16), 0);
        assertEquals(", worst-served team applied got 0.16 of its owed GPU-hours", Comparison.worstServed(slurmLike));
        PolicyMetrics.FairShare overServed = new PolicyMetrics.FairShare(Map.of("nlp", 1.2, "vision", 1.4), 0);
        assertEquals(", worst-served team nlp got 1.00 of its owed GPU-hours", Comparison.worstServed(overServed), "capped at 1, as the web view shows it");
    }

    @Test
    void theTerminalLineSaysTheWaitInHours() {
        PolicyMetrics horizon = new PolicyMetrics(0.61, 638.4, 1, 513, 600, 876, 122, new PolicyMetrics.Percentiles(0, 0, 34_684, 0), Map.of(), null,
                0, 0, null, 0, null);
        assertEquals("horizon demo:   horizon  utilization 0.61, 513 of 876 jobs done, wait p95 9.6 h, output 638.4", Comparison.line("horizon", horizon));
    }

    @Test
    void aDayWithoutBudgetsSaysNothingOfTeams() {
        assertEquals("", Comparison.worstServed(null));
    }
}
