package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which runs a waiting job of a sweep draws its duration from. */
class DurationDrawsTest {
    private static final long NOW = 36_000;
    private static final Contract BATCH = Contract.defaultFor(JobClass.BATCH_INFERENCE);

    private static ActiveJob sibling(String id, Long runningSince) {
        ActiveJob.Running run = runningSince == null ? null : new ActiveJob.Running(runningSince, new Placement(List.of(new Placement.Slice(0, 0, 1))), false);
        return new ActiveJob(id, "t", JobClass.BATCH_INFERENCE, 1, 1, 1, NOW - 3000, null, BATCH, null, null, null, run);
    }

    /** A team whose 40 batch runs took about the given seconds (within 5%). */
    private static DurationEstimator teamRuns(long seconds) {
        DurationEstimator d = new DurationEstimator();
        for (int i = 0; i < 40; i++) d.observe("t", JobClass.BATCH_INFERENCE, seconds - seconds / 20 + (seconds / 10) * i / 39);
        return d;
    }

    /** Siblings of the sweep that ran about 100 s and ended, having started 2,000 s ago. */
    private static void endedShort(DurationEstimator d, int count) {
        for (int i = 0; i < count; i++) d.observe(new DurationEstimator.Finished("t", JobClass.BATCH_INFERENCE, 1, NOW - 3000, NOW - 2000 + 100 + i, 100 + i));
    }

    /** The median of the window the sweep's waiting job draws from, with these siblings running since these times. */
    private static long medianDrawn(DurationEstimator d, List<Long> runningSince) {
        List<ActiveJob> running = new ArrayList<>();
        for (int i = 0; i < runningSince.size(); i++) running.add(sibling("running-" + i, runningSince.get(i)));
        return DurationDraws.window(sibling("waiting", null), d, new DurationDraws.RunningSiblings(running), NOW).orElseThrow().quantile(0.5);
    }

    @Test
    void siblingsThatEndedWithNoneRunningLongerDecide() {
        DurationEstimator d = teamRuns(3600);
        endedShort(d, 12);
        long median = medianDrawn(d, List.of(NOW - 600));
        assertTrue(median < 200, "twelve siblings ran ~100 s and the one running has done 600 s: theirs decide (median " + median + " s)");
    }

    @Test
    void theFirstSiblingsToEndAreTheShortOnesWhileManyRunOn() {
        // six ended after ~100 s while twenty, started as long ago, have run 1,000 to 2,500 s and go on
        DurationEstimator d = teamRuns(3600);
        endedShort(d, 6);
        List<Long> since = new ArrayList<>();
        for (int i = 0; i < 20; i++) since.add(NOW - 1000 - 75L * i);
        long median = medianDrawn(d, since);
        assertTrue(median > 2500, "the sweep's six short runs are its first to end, not its usual; twenty still go on (median " + median + " s)");
    }

    @Test
    void siblingsRunningLongerThanTheTeamsRunsEverTookSayTheSweepRunsLong() {
        // Philly seed 29 / day 13: the team's runs took ~900 s; twelve of its new sweep have run 300 to 1,840 s, none ended
        DurationEstimator d = teamRuns(900);
        List<Long> since = new ArrayList<>();
        for (int i = 0; i < 12; i++) since.add(NOW - 300 - 140L * i);
        long median = medianDrawn(d, since);
        assertTrue(median > 1800, "half the sweep's running jobs outlived every run of the team's: it runs long (median " + median + " s)");
    }
}
