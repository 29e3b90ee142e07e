package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.planning.PlanStore;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.store.Db;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * This replica plans, then another one (a stand-in HTTP server) takes the lease over: this follower still answers the
 * plan and its history from the store, and passes node commands on to the leader where the lease says it answers.
 */
@QuarkusTest
class FollowerTest {
    @Inject
    Planner planner;
    @Inject
    Leadership leadership;
    @Inject
    Db db;
    @Inject
    PlanStore plans;

    private static final String STAND_IN_P50 = "2026-01-02T03:04:05Z";
    private HttpServer leader;

    @AfterEach
    void leadAgain() throws InterruptedException {
        if (leader != null) leader.stop(0);
        db.update("DELETE FROM start_bands", ps -> { });
        db.update("UPDATE leader_lease SET expires_at = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' WHERE name = 'planner'", ps -> { });
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (leadership.epoch() == 0 && System.nanoTime() < deadline) Thread.sleep(100);
    }

    @Test
    void aFollowerAnswersTheLeadersPlanAndHistoryAndPassesCommandsOn() throws Exception {
        PlannerTest.cancelEverything();
        Api.team("follow", 0.2);
        String job = Api.submit(ADMIN, Api.job("followed", "follow", "TRAINING", 8));
        Planner.PlanSnapshot made = planner.planNow();

        Map<String, String> seen = new ConcurrentHashMap<>();
        leader = standInLeader(seen);
        String leaderUrl = "http://127.0.0.1:" + leader.getAddress().getPort();
        takeOver(leaderUrl);
        awaitFollowing();

        // the planning loop may have planned again (a second later) before the takeover; once it is taken, the fence
        // keeps this replica's plans out of the store, so what is stored now is the last plan it made as the leader
        Planner.PlanSnapshot stored = plans.current().orElseThrow();
        assertTrue(stored.now() >= made.now(), "the stored plan is the one made or a later one");
        as(ADMIN).get("/api/v1/plan").then().statusCode(200).body("plannedAt", equalTo(Api.iso(stored.now())))
                .body("busyGpus", equalTo(stored.busyGpus())).body("running.jobId", org.hamcrest.Matchers.hasItem(job));
        List<String> at = as(ADMIN).get("/api/v1/plan/history").then().statusCode(200).extract().path("at");
        assertEquals(Api.iso(stored.now()), at.get(at.size() - 1), "the history ends with the leader's last plan");
        as(ADMIN).get("/api/leader").then().body("url", equalTo(leaderUrl)).body("self", equalTo(false));
        // the other leader plans: this replica shows its plan and history point, not what it last planned itself
        db.update("UPDATE plan_snapshot SET snapshot = REPLACE(snapshot, '\"busyGpus\":8', '\"busyGpus\":7')", ps -> { });
        db.update("INSERT INTO plan_history (planned_at, total_gpus, busy_gpus, pending_jobs, inference_demand_gpus, inference_served_gpus)"
                + " VALUES (?, 16, 7, 0, 0, 0)", ps -> ps.setLong(1, made.now() + 120));
        as(ADMIN).get("/api/v1/plan").then().body("busyGpus", equalTo(7));
        List<Integer> busy = as(ADMIN).get("/api/v1/plan/history").then().extract().path("busyGpus");
        assertEquals(7, busy.get(busy.size() - 1));

        String command = "{\"drain\":{\"reason\":\"passed on\"}}";
        as(ADMIN).body(command).post("/api/v1/nodes/gpu-9/commands").then().statusCode(201).body("id", equalTo("from-the-leader"))
                .header("Location", "/api/v1/nodes/gpu-9");
        assertEquals("POST /api/v1/nodes/gpu-9/commands", seen.get("request"));
        assertEquals(command, seen.get("body"), "the body reaches the leader as sent");
        assertEquals("Bearer " + ADMIN, seen.get("authorization"), "with the caller's own token, which the leader checks again");
        assertEquals(leadership.id(), seen.get("forwardedBy"));

        as(ADMIN).header("Horizon-Forwarded-By", "another-follower").body(command).post("/api/v1/nodes/gpu-9/commands").then().statusCode(503)
                .body("error", containsString("the leadership is moving"));

        // a waiting job's band: the views show the one the leader saved; the explanation is relayed from the leader
        String waiting = Api.submit(ADMIN, Api.job("waits", "follow", "TRAINING", 8));
        // (a band of the 2090s: one whose time has passed is never shown)
        db.update("INSERT INTO start_bands (job_id, p50_at, p90_at, bands_at) VALUES (?, 4000000000, 4000003600, 1000)", ps -> ps.setString(1, waiting));
        // (stored together: a follower reads the stored bands again only after a while) a job the futures leave without a band: the views show when the queue alone would start it, beside the note, not as the band
        String held = Api.submit(ADMIN, Api.job("held-back", "follow", "TRAINING", 8));
        db.update("INSERT INTO start_bands (job_id, note, queue_alone_p50_at, queue_alone_p90_at, queue_alone_said, bands_at)"
                + " VALUES (?, 'in 12 of 12 sampled futures it had not started', 4000007200, 4000010800, 'were no more work to arrive ahead of it, ...', 1000)",
                ps -> ps.setString(1, held));
        as(ADMIN).get("/api/v1/jobs/" + waiting).then().statusCode(200).body("startP50At", equalTo(Api.iso(4_000_000_000L))).body("startP90At", equalTo(Api.iso(4_000_003_600L)));
        as(ADMIN).get("/api/v1/jobs?state=PENDING").then().statusCode(200).body("find { it.id == '" + waiting + "' }.startP90At", equalTo(Api.iso(4_000_003_600L)));
        as(ADMIN).get("/api/v1/jobs/" + held).then().statusCode(200).body("startP50At", org.hamcrest.Matchers.nullValue())
                .body("queueAloneP50At", equalTo(Api.iso(4_000_007_200L))).body("queueAloneP90At", equalTo(Api.iso(4_000_010_800L)))
                .body("startBandNote", equalTo("in 12 of 12 sampled futures it had not started; were no more work to arrive ahead of it, ..."));
        as(ADMIN).get("/api/v1/plan").then().statusCode(200).body("pending.find { it.jobId == '" + held + "' }.queueAloneP90At", equalTo(Api.iso(4_000_010_800L)));
        as(ADMIN).get("/api/v1/jobs/" + waiting + "/explanation?alternatives=false").then().statusCode(200).body("startP50At", equalTo(STAND_IN_P50));
        assertEquals("GET /api/v1/jobs/" + waiting + "/explanation?alternatives=false", seen.get("request"));
        assertEquals("Bearer " + ADMIN, seen.get("authorization"), "the leader checks the caller's token again");

        leader.stop(0);
        as(ADMIN).body(command).post("/api/v1/nodes/gpu-9/commands").then().statusCode(503).header("Retry-After", "10")
                .body("error", containsString("did not answer"));
        // no leader answers: the follower answers itself, with the band the leader saved and no alternatives (they re-plan its moment)
        as(ADMIN).get("/api/v1/jobs/" + waiting + "/explanation").then().statusCode(200).body("state", equalTo("PENDING"))
                .body("startP50At", equalTo(Api.iso(4_000_000_000L))).body("alternatives", org.hamcrest.Matchers.empty());
    }

    @Test
    void withoutForwardingAFollowerRedirectsToTheLeaderAndWithoutItsAddressAsksToRetry() throws Exception {
        takeOver("http://10.1.2.3:8080");
        awaitFollowing();
        String command = "{\"drain\":{\"reason\":\"redirected\"}}";
        boolean forward = forwardWrites(false);
        try {
            as(ADMIN).redirects().follow(false).body(command).post("/api/v1/nodes/gpu-9/commands?x=1").then().statusCode(307)
                    .header("Location", "http://10.1.2.3:8080/api/v1/nodes/gpu-9/commands?x=1").header("Retry-After", "0");
        } finally {
            forwardWrites(forward);
        }
        // a leader that did not say where it answers (one of an older version)
        takeOver(null);
        as(ADMIN).body(command).post("/api/v1/nodes/gpu-9/commands").then().statusCode(503).header("Retry-After", "10")
                .body("error", containsString("has not said where it answers"));
    }

    private void takeOver(String url) {
        db.update("UPDATE leader_lease SET holder = 'the-other-replica', holder_url = ?, epoch = epoch + 1,"
                + " expires_at = CURRENT_TIMESTAMP + INTERVAL '1' HOUR WHERE name = 'planner'", ps -> ps.setString(1, url));
    }

    private void awaitFollowing() throws InterruptedException {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (leadership.epoch() != 0) {
            if (System.nanoTime() > deadline) throw new AssertionError("this replica did not notice the takeover within 15 s");
            Thread.sleep(100);
        }
    }

    private boolean forwardWrites(boolean forward) throws Exception {
        Object forwarding = io.quarkus.arc.Arc.container().instance(dev.horizon.service.leadership.LeaderForwarding.class).get();
        java.lang.reflect.Field field = forwarding.getClass().getDeclaredField("forwardWrites");
        field.setAccessible(true);
        boolean before = field.getBoolean(forwarding);
        field.setBoolean(forwarding, forward);
        return before;
    }

    /** Answers an explanation 200 with a band of its own, every other request 201 with a command of its own, and remembers what it got. */
    private static HttpServer standInLeader(Map<String, String> seen) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            seen.put("request", exchange.getRequestMethod() + " " + exchange.getRequestURI());
            seen.put("body", new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            seen.put("authorization", String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            seen.put("forwardedBy", String.valueOf(exchange.getRequestHeaders().getFirst("Horizon-Forwarded-By")));
            boolean explanation = exchange.getRequestURI().getPath().endsWith("/explanation");
            byte[] answer = (explanation ? "{\"state\":\"PENDING\",\"startP50At\":\"" + STAND_IN_P50 + "\"}" : "{\"id\":\"from-the-leader\",\"state\":\"QUEUED\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            if (!explanation) exchange.getResponseHeaders().add("Location", "/api/v1/nodes/gpu-9");
            exchange.sendResponseHeaders(explanation ? 200 : 201, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        return server;
    }
}
