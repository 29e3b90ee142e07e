package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.leadership.NotLeaderException;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.store.Db;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.net.URL;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The one replica on H2 leads; once another replica has taken the lease over, the store refuses its writes and it
 * follows, until that replica's lease runs out.
 */
@QuarkusTest
class LeadershipTest {
    @Inject
    Leadership leadership;
    @Inject
    Planner planner;
    @Inject
    Db db;
    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Test
    void aDeposedLeaderCommitsNothingAndTheNextLeaderConfirmsThePlacementsUnderItsEpoch() throws Exception {
        JsonPath lease = as(ADMIN).get("/api/leader").then().statusCode(200).extract().jsonPath();
        assertTrue(lease.getBoolean("self"), "the only replica leads: " + lease.prettify());
        assertEquals(leadership.id(), lease.getString("holder"));
        long epoch = lease.getLong("epoch");
        assertTrue(epoch >= 1, "an elected leader has an epoch: " + epoch);
        given().get(management + "health/ready").then().statusCode(200);
        PlannerTest.cancelEverything();

        // another replica takes the lease over while this one still believes it leads
        db.update("UPDATE leader_lease SET holder = 'another-replica', epoch = epoch + 1, expires_at = CURRENT_TIMESTAMP + INTERVAL '1' HOUR"
                + " WHERE name = 'planner'", ps -> { });
        String fenced = assertThrows(NotLeaderException.class, () -> db.inTransaction(c -> {
            leadership.fence(c, epoch);
            return null;
        })).getMessage();
        assertTrue(fenced.contains("no longer holds the leadership of epoch " + epoch), fenced);
        Api.team("fenced", 0.1);
        String job = Api.submit(ADMIN, Api.job("fenced-job", "fenced", "QUANTIZATION", 1));
        try {
            planner.planNow();
        } catch (IllegalStateException e) {
            // it had not noticed yet: its commit was refused
            assertTrue(e.getMessage().contains("no longer holds the leadership"), e.getMessage());
        }
        assertEquals("PENDING", as(ADMIN).get("/api/v1/jobs/" + job).then().extract().path("state"), "the deposed replica placed nothing");
        await(() -> leadership.epoch() == 0, "this replica noticing it was deposed");
        as(ADMIN).get("/api/leader").then().body("self", equalTo(false)).body("holder", equalTo("another-replica"));
        given().get(management + "health/ready").then().statusCode(200).body("checks.find { it.name == 'planner' }.data.leader", equalTo(false));

        // that replica dies: its lease runs out and this one is elected again, one epoch further
        db.update("UPDATE leader_lease SET expires_at = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' WHERE name = 'planner'", ps -> { });
        await(() -> leadership.epoch() != 0, "this replica elected again");
        long next = leadership.epoch();
        assertEquals(epoch + 2, next, "re-elected after the other replica's term");
        planner.planNow();
        JsonPath placed = as(ADMIN).get("/api/v1/jobs/" + job).then().extract().jsonPath();
        assertEquals("RUNNING", placed.getString("state"));
        assertEquals(next, placed.getLong("leaderEpoch"), "the placement carries the epoch of the leader that made it");
        as(ADMIN).get("/api/v1/jobs?state=RUNNING&limit=10000").then().statusCode(200).extract().jsonPath().getList("leaderEpoch")
                .forEach(e -> assertEquals(next, ((Number) e).longValue(), "every running placement is confirmed under the new epoch"));
    }

    /** Leadership is renewed and taken every 2 s, so either happens within a few. */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError(what + " did not happen within 15 s");
            Thread.sleep(100);
        }
    }
}
