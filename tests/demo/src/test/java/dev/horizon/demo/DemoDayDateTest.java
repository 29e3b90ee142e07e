package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.trace.DemoDayScenario;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The date the demo's virtual clock starts on: the trace's day on this year's calendar, or today with the generator. */
class DemoDayDateTest {
    private static DemoDayScenario.Day from(LocalDate traceDay) {
        return new DemoDayScenario.Day(null, List.of(), null, "a test", traceDay);
    }

    @Test
    void theTracesDayIsShownOnThisYearsCalendarAtMidnightUtc() {
        LocalDate today = LocalDate.of(2026, 12, 3);
        assertEquals(Instant.parse("2026-10-09T00:00:00Z"), from(LocalDate.of(2017, 10, 9)).clockStart(today));
        assertEquals("the trace's 2017-10-09, shown on this year's calendar as 2026-10-09", from(LocalDate.of(2017, 10, 9)).dateWords(today));
        assertEquals(Instant.parse("2027-02-28T00:00:00Z"), from(LocalDate.of(2016, 2, 29)).clockStart(LocalDate.of(2027, 1, 1)), "no 29 February");
    }

    /** Jobs of gpus GPUs arriving at each of arrivals, each running an hour. */
    private static DemoDayScenario.Day jobsAt(int gpus, long... arrivals) {
        List<DemoDayScenario.Submission> subs = new java.util.ArrayList<>();
        for (long a : arrivals) {
            subs.add(new DemoDayScenario.Submission(new dev.horizon.simulation.SimJob("j" + a, "nlp", dev.horizon.api.JobClass.TRAINING, 1, gpus, gpus, a, 3600,
                    3600L, dev.horizon.api.Contract.defaultFor(dev.horizon.api.JobClass.TRAINING), null, null), null, "job JSON"));
        }
        return new DemoDayScenario.Day(null, subs, null, "a test", null);
    }

    @Test
    void theDemoRunsFromAnHourBeforeTheFirstMomentTheWorkAsksForMoreGpusThanTheClusterHas() {
        assertEquals(50_200, jobsAt(8, 1_000, 50_000, 50_100, 50_200).firstContentionSeconds(), "two 8-GPU jobs fill the 16 GPUs; the third contends");
        assertEquals(17_000, jobsAt(8, 10_000, 14_000, 16_000, 17_000).firstContentionSeconds(), "work done by 13,600 s freed its GPUs");
    }

    @Test
    void theGeneratorsDayIsToday() {
        assertEquals(Instant.parse("2026-12-03T00:00:00Z"), from(null).clockStart(LocalDate.of(2026, 12, 3)));
    }

    @Test
    void theLauncherGivesTheControlPlaneTheDaysClockStartAndItsBudgetsAgeing() throws Exception {
        DemoDayScenario.Day day = DemoDayScenario.build(1, java.nio.file.Path.of("no-traces-here"), new Workloads());
        assertEquals(DemoDayScenario.AGE_DOUBLING_HOURS * 3600L, day.scenario().budgets().ageDoublingSeconds(), "the bench's demo-day ages as the demo does");
        assertEquals(List.of("horizon.clock.start=2026-12-03T00:00:00Z", "horizon.planner.age-doubling-hours=" + DemoDayScenario.AGE_DOUBLING_HOURS),
                DemoMain.controlPlaneSettings(day, LocalDate.of(2026, 12, 3)));
    }
}
