package dev.horizon.service.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.JobClass;
import dev.horizon.service.Api;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

@QuarkusTest
class DurationStatsTest {
    private static final long NOW = 1_800_000_000L;

    @Inject
    JobStore jobs;
    @Inject
    DurationStats stats;
    @Inject
    Db db;

    @Test
    void aSuccessIsFoldedInWhenItFinishesAndTheWindowOutlivesTheJobRows() {
        Api.team("durations", 0.1);
        List<String> ids = List.of(ran(400), ran(100), ran(300), ran(200));
        String failed = ran(5000);
        for (String id : ids) assertTrue(jobs.finish(id, JobState.SUCCEEDED, NOW));
        assertTrue(jobs.finish(failed, JobState.FAILED, NOW));
        assertFalse(jobs.finish(ids.get(0), JobState.SUCCEEDED, NOW + 10), "a finished job does not finish twice");

        assertEquals(List.of(400L, 100L, 300L, 200L), window(), "successes only, each once, oldest first");
        assertEquals(300, jobs.durationEstimator().estimate("durations", JobClass.TRAINING, null), "the median of the window");
        assertEquals(400, jobs.durationEstimator().runs("durations", JobClass.TRAINING).orElseThrow().quantile(0.9));
        db.update("DELETE FROM jobs WHERE team = 'durations'", ps -> { });
        assertEquals(300, jobs.durationEstimator().estimate("durations", JobClass.TRAINING, null),
                "the estimate comes from the stored window, not from the finished jobs");
    }

    @Test
    void anEmptyTableIsRebuiltFromTheStoredJobsOnStart() {
        Api.team("rebuilt", 0.1);
        long[] durations = {70, 10, 50};
        for (int i = 0; i < durations.length; i++) {
            // ended one second apart, so the rebuild has an order to keep
            String id = ran("rebuilt", durations[i] - i);
            jobs.finish(id, JobState.SUCCEEDED, NOW + i);
        }
        List<String> before = db.query("SELECT team, job_class, runs, recent FROM duration_stats ORDER BY team, job_class", ps -> { },
                rs -> rs.getString(1) + " " + rs.getString(2) + " " + rs.getLong(3) + " " + rs.getString(4));
        db.update("DELETE FROM duration_stats", ps -> { });
        stats.rebuildOnStart(null);
        List<String> after = db.query("SELECT team, job_class, runs, recent FROM duration_stats ORDER BY team, job_class", ps -> { },
                rs -> rs.getString(1) + " " + rs.getString(2) + " " + rs.getLong(3) + " " + rs.getString(4));
        assertTrue(after.contains("rebuilt TRAINING 3 70,10,50"), "the rebuilt window keeps the order the runs ended in: " + after);
        assertTrue(after.containsAll(before.stream().filter(r -> r.startsWith("rebuilt ")).toList()), before + " vs " + after);
        stats.rebuildOnStart(null);
        assertEquals(after, db.query("SELECT team, job_class, runs, recent FROM duration_stats ORDER BY team, job_class", ps -> { },
                rs -> rs.getString(1) + " " + rs.getString(2) + " " + rs.getLong(3) + " " + rs.getString(4)), "a filled table is left alone");
    }

    private String ran(long seconds) {
        return ran("durations", seconds);
    }

    /** A running TRAINING job of the team that started the given number of seconds before NOW. */
    private String ran(String team, long seconds) {
        String id = UUID.randomUUID().toString();
        jobs.insert(JobRow.builder().id(id).name("d").team(team).jobClass(JobClass.TRAINING).gpus(1).minGpus(1).spec("{}").state(JobState.PENDING)
                .submittedAt((NOW - seconds) * 1000).rule("submitted").reason("waiting").build());
        db.update("UPDATE jobs SET state = 'RUNNING', started_at = ?, placement = 'node-0[0-0]' WHERE id = ?", ps -> {
            ps.setLong(1, NOW - seconds);
            ps.setString(2, id);
        });
        return id;
    }

    private List<Long> window() {
        return db.query("SELECT recent FROM duration_stats WHERE team = 'durations' AND job_class = 'TRAINING'", ps -> { },
                rs -> DurationStats.parse(rs.getString(1)).values()).get(0);
    }
}
