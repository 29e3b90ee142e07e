package dev.horizon.service.retention;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.InferenceService;
import dev.horizon.api.JobClass;
import dev.horizon.service.Api;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.fairshare.FairShareWindow;
import dev.horizon.service.fairshare.UsageStore;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Retention folds what is older than its window into the hourly aggregates and deletes it, and nothing the planner or
 * the API reads from the running aggregates changes: fair share, owed-delivered, duration estimates, the forecast.
 */
@QuarkusTest
class RetentionTest {
    private static final long DAYS_LATER = 31 * Retention.DAY;

    @Inject
    Retention retention;
    @Inject
    Planner planner;
    @Inject
    Db db;
    @Inject
    JobStore jobs;
    @Inject
    UsageStore usage;
    @Inject
    InferenceStore inference;
    @Inject
    ServiceClock clock;

    @Test
    void whatIsOlderThanTheWindowIsFoldedAndDeletedAndTheRunningAggregatesDoNotChange() throws Exception {
        Api.cancelEverything();
        Api.team("retained", 0.5);
        List<String> done = new ArrayList<>();
        for (int i = 0; i < 3; i++) done.add(Api.submit(ADMIN, Api.job("r" + i, "retained", "BATCH_INFERENCE", 2)));
        planner.planNow();
        Thread.sleep(1100);
        for (String id : done.subList(0, 2)) as(ADMIN).body("{\"state\":\"SUCCEEDED\"}").post("/api/v1/jobs/" + id + "/outcome").then().statusCode(200);
        as(ADMIN).body("{\"state\":\"FAILED\"}").post("/api/v1/jobs/" + done.get(2) + "/outcome").then().statusCode(200);
        String stillRunning = Api.submit(ADMIN, Api.job("keeps-running", "retained", "BATCH_INFERENCE", 1));
        // a job cancelled before it ever ran, ten seconds before the others ended (written as the store holds one)
        String cancelled = UUID.randomUUID().toString();
        long cancelledAt = clock.seconds() - 10;
        jobs.insert(JobRow.builder().id(cancelled).name("never-ran").team("retained").jobClass(JobClass.DEBUG).gpus(1).minGpus(1).spec("{}")
                .state(JobState.CANCELLED).submittedAt(cancelledAt * 1000 - 5000).build());
        db.update("UPDATE jobs SET ended_at = ? WHERE id = ?", ps -> {
            ps.setLong(1, cancelledAt);
            ps.setString(2, cancelled);
        });
        // the second plan has nothing new to decide, so no plan follows it: the ledger stays where these two booked it
        planner.planNow();
        planner.planNow();

        long now = clock.seconds();
        String command = UUID.randomUUID().toString();
        db.update("INSERT INTO node_commands (id, node, action, state, created_at, finished_at, leader_epoch) VALUES (?, 'old-node',"
                + " '{\"applyMigLayout\":{\"gpuUuid\":\"GPU-1\",\"slots\":[]}}', 'SUCCEEDED', ?, ?, 1)", ps -> {
                    ps.setString(1, command);
                    ps.setLong(2, now * 1000);
                    ps.setLong(3, now * 1000);
                });
        db.update("INSERT INTO memory_violations (node, gpu_uuid, pid, used_mib, allowed_mib, action, observed_at) VALUES ('old-node', 'GPU-1', 7,"
                + " 900, 800, 'KILLED', ?)", ps -> ps.setLong(1, now * 1000));
        inference.insert(new InferenceService("retained-chat", "retained", 10, 2));
        int keep = 30 * inference.stepsPerDay();
        List<Double> steps = new ArrayList<>(Collections.nCopies(keep + 5, 1.0));
        steps.set(0, 9.0);
        inference.report("retained-chat", steps, null);

        double owedBefore = as(ADMIN).get("/api/v1/teams/retained").then().extract().jsonPath().getDouble("owedGpuHoursDelivered");
        var windowBefore = usage.totals(FairShareWindow.fromHour(now), FairShareWindow.toHour(now)).get("retained");
        long estimateBefore = jobs.durationEstimator().estimate("retained", JobClass.BATCH_INFERENCE, null);
        List<Float> forecastBefore = as(ADMIN).get("/api/v1/inference-services/retained-chat").then().extract().path("forecast");

        // as if the plans had booked only up to a second after the cancelled job ended, before the others ended: what ended
        // after that is not in the aggregates yet
        long booked = usage.ledger().bookedUntil();
        db.update("UPDATE fair_share_ledger SET booked_until = ?", ps -> ps.setLong(1, cancelledAt + 1));
        retention.run(now + DAYS_LATER);
        as(ADMIN).get("/api/v1/jobs/" + cancelled).then().statusCode(404);
        for (String id : done) as(ADMIN).get("/api/v1/jobs/" + id).then().statusCode(200);
        db.update("UPDATE fair_share_ledger SET booked_until = ?", ps -> ps.setLong(1, booked));

        retention.run(now + DAYS_LATER);
        for (String id : done) as(ADMIN).get("/api/v1/jobs/" + id).then().statusCode(404);
        as(ADMIN).get("/api/v1/jobs/" + stillRunning).then().statusCode(200);
        assertEquals(List.of(), db.query("SELECT id FROM run_segments WHERE job_id = ?", ps -> ps.setString(1, done.get(0)), rs -> rs.getLong(1)),
                "the run segments go with their job");
        assertEquals(List.of("2 1 1 3"), db.query("SELECT SUM(succeeded), SUM(failed), SUM(cancelled), SUM(started) FROM job_history_hourly"
                + " WHERE team = 'retained'", ps -> { }, rs -> rs.getLong(1) + " " + rs.getLong(2) + " " + rs.getLong(3) + " " + rs.getLong(4)));

        assertEquals(List.of(), db.query("SELECT id FROM node_commands WHERE id = ?", ps -> ps.setString(1, command), rs -> rs.getString(1)));
        assertEquals(List.of("command applyMigLayout SUCCEEDED 1", "memory-violation KILLED 1"), db.query("SELECT kind, detail, events FROM"
                + " node_events_hourly WHERE node = 'old-node' ORDER BY kind", ps -> { }, rs -> rs.getString(1) + " " + rs.getString(2) + " " + rs.getLong(3)));
        assertEquals(0, db.query("SELECT COUNT(*) FROM memory_violations WHERE node = 'old-node'", ps -> { }, rs -> rs.getInt(1)).get(0));
        assertEquals(keep, db.query("SELECT COUNT(*) FROM inference_demand WHERE service = 'retained-chat'", ps -> { }, rs -> rs.getInt(1)).get(0),
                "demand beyond the retention goes; the forecaster's four weeks stay");
        // four 15-minute steps an hour: the first hour's (9, 1, 1, 1) and one step of the next
        assertEquals(List.of("4 9.0 3.0", "1 1.0 1.0"), db.query("SELECT steps, peak_gpus, mean_gpus FROM inference_demand_hourly"
                + " WHERE service = 'retained-chat' ORDER BY step_hour",
                ps -> { }, rs -> rs.getInt(1) + " " + rs.getDouble(2) + " " + rs.getDouble(3)));

        assertEquals(owedBefore, as(ADMIN).get("/api/v1/teams/retained").then().extract().jsonPath().getDouble("owedGpuHoursDelivered"), 1e-9,
                "owed-delivered reads the hourly aggregates, which deleting the jobs leaves as they were");
        var windowAfter = usage.totals(FairShareWindow.fromHour(now), FairShareWindow.toHour(now)).get("retained");
        assertEquals(windowBefore.used(), windowAfter.used(), 1e-9, "fair share's window is unchanged");
        assertEquals(windowBefore.owed(), windowAfter.owed(), 1e-9);
        assertEquals(estimateBefore, jobs.durationEstimator().estimate("retained", JobClass.BATCH_INFERENCE, null), "the estimate keeps its runs");
        assertEquals(forecastBefore, as(ADMIN).get("/api/v1/inference-services/retained-chat").then().extract().path("forecast"));

        assertEquals(0, retention.run(now + DAYS_LATER).jobs(), "a second pass finds nothing more");
        as(ADMIN).delete("/api/v1/inference-services/retained-chat").then().statusCode(204);
        Api.cancelEverything();
    }
}
