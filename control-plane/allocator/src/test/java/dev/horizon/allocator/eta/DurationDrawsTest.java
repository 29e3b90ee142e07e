package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.Placement;
import dev.horizon.allocator.moment.JobState;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which runs a waiting job of a sweep draws its duration from. */
class DurationDrawsTest {
    private static final long NOW = 36_000;
    private static final Contract BATCH = Contract.defaultFor(JobClass.BATCH_INFERENCE);

    private static JobState sibling(String id, JobState.Running run) {
        return new JobState(id, "t", JobClass.BATCH_INFERENCE, 1, 1, 1, NOW - 3000, null, BATCH, null, null, null, run);
    }

    /** The median of the window a waiting sibling draws from, when the sweep's running sibling started at runningSince. */
    private static long medianDrawnFor(long runningSince) {
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.BATCH_INFERENCE, 3600 - 400 + 20 * i);
        // twelve siblings started 2,000 s ago; these ran about 100 s and ended
        for (int i = 0; i < 12; i++) d.observe(new DurationEstimator.Finished("t", JobClass.BATCH_INFERENCE, 1, NOW - 3000, NOW - 2000 + 100 + i, 100 + i));
        JobState running = sibling("running", new JobState.Running(runningSince, new Placement(List.of(new Placement.Slice(0, 0, 1))), false));
        JobState waiting = sibling("waiting", null);
        return DurationDraws.window(waiting, d, List.of(running, waiting), NOW).orElseThrow().quantile(0.5);
    }

    @Test
    void siblingsThatEndedWhileOnesStartedBeforeThemStillRunAreNotItsRuns() {
        long afterThem = medianDrawnFor(NOW - 600);
        assertTrue(afterThem < 200, "the sibling running since 600 s ago started after the twelve ended: their ~100 s decide (median " + afterThem + " s)");
        long beforeThem = medianDrawnFor(NOW - 2500);
        assertTrue(beforeThem > 3000, "a sibling running since before the twelve started outlived them all: they are the sweep's short ones so far,"
                + " and the team's ~3,600 s runs stand (median " + beforeThem + " s)");
    }
}
