package dev.horizon.service.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bands' futures see the day's successful runs with their shape, as the bench's do, and nothing that has not ended well. */
class FinishedRunsTest {
    private static final long NOW = 100_000;

    @Test
    void theDaysSuccessfulRunsSpeakForTheirBurstAndNothingElseDoes() {
        ClusterMoment m = new ClusterMoment(NOW, 900, 96, List.of(NodeState.ready(new GpuNode("n", "H100-80GB", 8, 81_920, null))), List.of(), null, List.of(), new DurationEstimator());
        List<JobRow> day = List.of(
                row("running", JobState.RUNNING, null, 0),
                row("failed", JobState.FAILED, NOW - 100, 1800),
                row("ok-3", JobState.SUCCEEDED, NOW - 150, 2 * 700),
                row("ok-2", JobState.SUCCEEDED, NOW - 200, 2 * 600),
                row("ok-1", JobState.SUCCEEDED, NOW - 300, 2 * 900));
        ClusterMoment withRuns = StartTimes.withFinishedRuns(m, day, new DurationEstimator());
        assertNotSame(m.durations(), withRuns.durations(), "the plan's own estimator is left as the plan used it");
        // oldest first, each as long as its kept work at full width (2 GPUs)
        assertEquals(List.of(900L, 600L, 700L), withRuns.durations().finishedLike("sweep", JobClass.BATCH_INFERENCE, 2, NOW - 3600, 600, NOW));
        assertTrue(withRuns.durations().runs("sweep", JobClass.BATCH_INFERENCE).isEmpty(),
                "the store's windows already hold these runs: remembering must not fold them in a second time");
    }

    private static JobRow row(String id, JobState state, Long endedAt, long doneGpuSeconds) {
        return JobRow.builder().id(id).name(id).team("sweep").jobClass(JobClass.BATCH_INFERENCE).gpus(2).minGpus(2).spec("{}").state(state)
                .submittedAt((NOW - 3600) * 1000).startedAt(NOW - 3000).endedAt(endedAt).doneGpuSeconds(doneGpuSeconds).build();
    }
}
