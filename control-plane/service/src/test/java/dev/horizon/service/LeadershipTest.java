package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The one replica on H2 leads; a plan it makes after another replica took the lease over is refused by the store. */
@QuarkusTest
class LeadershipTest {
    @Inject
    Leadership leadership;
    @Inject
    Planner planner;
    @Inject
    Db db;

    @Test
    void aDeposedLeaderCommitsNothingAndTheNextLeaderConfirmsThePlacementsUnderItsEpoch() throws Exception {
        JsonPath lease = as(ADMIN).get("/api/leader").then().statusCode(200).extract().jsonPath();
        assertTrue(lease.getBoolean("self"), "the only replica leads: " + lease.prettify());
        assertEquals(leadership.id(), lease.getString("holder"));
        long epoch = lease.getLong("epoch");
        assertTrue(epoch >= 1, "an elected leader has an epoch: " + epoch);
        as(ADMIN).get("/q/health/ready").then().statusCode(200);

        Api.team("fenced", 0.1);
        String job = Api.submit(ADMIN, Api.job("fenced-job", "fenced", "QUANTIZATION", 1));
        // another replica takes the lease over while this one still believes it leads
        db.update("UPDATE leader_lease SET holder = 'another-replica', epoch = epoch + 1 WHERE name = 'planner'", ps -> { });
        String refused = assertThrows(IllegalStateException.class, planner::planNow).getMessage();
        assertTrue(refused.contains("no longer holds the leadership of epoch " + epoch), refused);
        assertEquals("PENDING", as(ADMIN).get("/api/v1/jobs/" + job).then().extract().path("state"), "the deposed leader's plan was not committed");

        // that replica dies: its lease runs out and this one is elected again, one epoch further
        db.update("UPDATE leader_lease SET expires_at = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' WHERE name = 'planner'", ps -> { });
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (leadership.epoch() <= epoch + 1 && System.nanoTime() < deadline) Thread.sleep(100);
        long next = leadership.epoch();
        assertEquals(epoch + 2, next, "re-elected after the other replica's term");
        planner.planNow();
        JsonPath placed = as(ADMIN).get("/api/v1/jobs/" + job).then().extract().jsonPath();
        assertEquals("RUNNING", placed.getString("state"));
        assertEquals(next, placed.getLong("leaderEpoch"), "the placement carries the epoch of the leader that made it");
        as(ADMIN).get("/api/v1/jobs?state=RUNNING&limit=10000").then().statusCode(200).extract().jsonPath().getList("leaderEpoch")
                .forEach(e -> assertEquals(next, ((Number) e).longValue(), "every running placement is confirmed under the new epoch"));
    }
}
