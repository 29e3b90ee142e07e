package dev.horizon.service.planning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.horizon.api.JobClass;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.teams.Team;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OwedDeliveredTest {
    private static final long NOW = 30 * 86_400L;
    private static final long HOUR = 3600;

    /** submitted and started/ended in seconds; null for a job that never started or has not ended. */
    private static JobRow job(String team, int gpus, long submitted, Long started, Long ended) {
        JobState state = ended != null ? JobState.SUCCEEDED : started != null ? JobState.RUNNING : JobState.PENDING;
        return new JobRow(team + submitted, "j", team, JobClass.TRAINING, 0, gpus, gpus, "{}", state, submitted * 1000, started, ended, null,
                false, null, null, null, null, 0, null, 0);
    }

    @Test
    void aTeamThatWaitedWhileAnotherRanGetsLessThanItWasOwed() {
        List<Team> teams = List.of(new Team("a", null, 0.5), new Team("b", null, 0.5));
        // both ask for all 8 GPUs for two hours; a runs on them the whole time, b waits the first hour and runs the second
        List<JobRow> jobs = List.of(job("a", 8, NOW - 2 * HOUR, NOW - 2 * HOUR, null), job("b", 8, NOW - 2 * HOUR, NOW - HOUR, null));
        Map<String, Double> delivered = OwedDelivered.compute(teams, jobs, NOW, 8);
        // each is owed 4 GPUs for 2 h = 8 GPU-hours; a ran 16 (capped at 1), b ran 8
        assertEquals(1.0, delivered.get("a"), 1e-9);
        assertEquals(1.0, delivered.get("b"), 1e-9);

        List<JobRow> starved = List.of(job("a", 8, NOW - 2 * HOUR, NOW - 2 * HOUR, null), job("b", 8, NOW - 2 * HOUR, null, null));
        assertEquals(0.0, OwedDelivered.compute(teams, starved, NOW, 8).get("b"), 1e-9);
    }

    @Test
    void onlyTheLastSevenDaysCountAndSharesFlowDownTheTree() {
        List<Team> teams = List.of(new Team("org", null, 1), new Team("x", "org", 0.75), new Team("y", "org", 0.25), new Team("idle", null, 0));
        long weekAgo = NOW - TeamWeights.WINDOW_SECONDS;
        List<JobRow> jobs = List.of(
                // ran 8 GPUs for 10 days but only 7 are in the window, and it asked nothing else
                job("x", 8, weekAgo - 3 * 86_400, weekAgo - 3 * 86_400, NOW - HOUR),
                // y asks 4 GPUs over the last hour and gets 2 of them: owed 0.25 of 8 = 2 while x asks, then all it asks
                job("y", 4, NOW - HOUR, NOW - HOUR, null),
                job("y", 2, NOW - HOUR, null, null));
        Map<String, Double> delivered = OwedDelivered.compute(teams, jobs, NOW, 8);
        assertEquals(1.0, delivered.get("x"), 1e-9);
        // last hour: x ended, y asks 6 GPUs and is owed all 6, runs 4
        assertEquals(4.0 / 6, delivered.get("y"), 1e-9);
        assertFalse(delivered.containsKey("idle"), "a team with no share is owed nothing and has no value");
    }
}
