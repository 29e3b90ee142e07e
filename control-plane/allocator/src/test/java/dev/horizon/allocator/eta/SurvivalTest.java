package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleBinaryOperator;
import org.junit.jupiter.api.Test;

class SurvivalTest {
    /** A run still going at age a runs on for a more (the test's own rule, easy to read off). */
    private static final DoubleBinaryOperator AS_LONG_AGAIN = (age, u) -> age;

    private static Survival.Run ended(double s) {
        return new Survival.Run(s, 1, true);
    }

    private static Survival.Run going(double s) {
        return new Survival.Run(s, 1, false);
    }

    @Test
    void endedRunsAloneAreTheirOwnQuantiles() {
        List<Survival.Run> runs = new ArrayList<>();
        for (int s = 1; s <= 100; s++) runs.add(ended(s));
        assertEquals(List.of(13L, 38L, 63L, 88L), Survival.quantiles(runs, 4, AS_LONG_AGAIN));
    }

    @Test
    void aRunGoingOnBeforeAnyEndedOneLeavesTheirShapeAsItIs() {
        assertEquals(List.of(100L, 100L, 200L, 200L), Survival.quantiles(List.of(going(50), ended(100), ended(200)), 4, AS_LONG_AGAIN));
    }

    @Test
    void runsGoingOnPastEveryEndedOneHoldTheirShareBeyond() {
        // three ended at 100 s; one has gone 1,000 s: a quarter of the estimate lies past it, as long again
        List<Long> q = Survival.quantiles(List.of(ended(100), ended(100), ended(100), going(1000)), 8, AS_LONG_AGAIN);
        assertEquals(List.of(100L, 100L, 100L, 100L, 100L, 100L, 2000L, 2000L), q);
    }

    @Test
    void aRunGoingOnBetweenEndedOnesPassesItsShareToTheLongerOnes() {
        // ended 100, going 150, ended 200 and 300: Kaplan-Meier gives 100 a quarter, 200 and 300 three eighths each
        List<Long> q = Survival.quantiles(List.of(ended(100), going(150), ended(200), ended(300)), 8, AS_LONG_AGAIN);
        assertEquals(2, q.stream().filter(s -> s == 100).count(), "100 s holds a quarter: " + q);
        assertEquals(3, q.stream().filter(s -> s == 300).count(), "300 s holds three eighths: " + q);
        assertTrue(q.stream().noneMatch(s -> s == 150), "a run still going is not a run's length: " + q);
    }

    @Test
    void anEstimateNeedsAnEndedRun() {
        assertThrows(IllegalArgumentException.class, () -> Survival.quantiles(List.of(going(100)), 4, AS_LONG_AGAIN));
    }
}
