package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * One time format in the API: every timestamp of the jobs, runs, plan, nodes, tokens, explanation, audit, clock and
 * comparisons answers is ISO-8601 UTC to the second, and no number in them is an epoch in seconds or milliseconds.
 */
@QuarkusTest
class TimeFormatTest {
    private static final Pattern ISO = Pattern.compile(Api.ISO_SECOND);
    /** Field names that hold a time. */
    private static final Pattern TIME_FIELD = Pattern.compile(".*At|start|plannedStart|estimatedEnd|lastSeen|now|at|from|to");
    /** The smallest epoch seconds of this century's times: a number this large in an answer is a time in the wrong format. */
    private static final long EPOCH_SECONDS_2001 = 1_000_000_000L;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    Planner planner;

    @Test
    void everyTimestampIsIsoUtcAndNoNumberIsAnEpoch() throws Exception {
        Api.cancelEverything();
        Api.budget("times", 0);
        Api.noBudgets();
        String submitter = Api.token("submitter", "times");
        for (int i = 0; i < 4; i++) Api.submit(submitter, Api.job("eight-" + i, "times", "QUANTIZATION", 8));
        planner.planNow();
        String ended = as(ADMIN).get("/api/v1/jobs?state=RUNNING").then().extract().path("[0].id");
        as(ADMIN).delete("/api/v1/jobs/" + ended).then().statusCode(200);
        planner.planNow();
        String running = as(ADMIN).get("/api/v1/jobs?state=RUNNING").then().extract().path("[0].id");
        String waiting = as(ADMIN).get("/api/v1/jobs?state=PENDING").then().extract().path("[0].id");
        String node = as(ADMIN).get("/api/v1/nodes").then().extract().path("[0].name");
        String tokenId = as(ADMIN).get("/api/v1/tokens").then().extract().path("[0].id");
        as(ADMIN).body("{\"scenario\":\"times\",\"computing\":true,\"window\":{\"from\":\"" + Api.iso(1_790_208_000L) + "\",\"to\":\""
                + Api.iso(1_790_294_400L) + "\"}}").put("/api/v1/comparisons/times").then().statusCode(200);

        Set<String> seen = new TreeSet<>();
        for (String path : List.of("/api/v1/jobs", "/api/v1/jobs/" + running, "/api/v1/jobs/" + ended, "/api/v1/jobs/" + waiting,
                "/api/v1/jobs/" + waiting + "/explanation", "/api/v1/jobs/" + running + "/explanation", "/api/v1/runs",
                "/api/v1/plan", "/api/v1/plan/history", "/api/v1/nodes", "/api/v1/nodes/" + node, "/api/v1/tokens",
                "/api/v1/tokens/" + tokenId, "/api/v1/audit", "/api/v1/clock", "/api/v1/inference-services", "/api/v1/comparisons")) {
            String body = as(ADMIN).get(path).then().statusCode(200).extract().asString();
            walk(path, "$", JSON.readTree(body), seen);
        }
        assertTrue(seen.containsAll(List.of("submittedAt", "startedAt", "endedAt", "plannedStart", "plannedStartAt", "plannedAt", "start",
                "estimatedEnd", "at", "lastSeen", "createdAt", "lastUsedAt", "now", "storedAt", "from", "to")), "the walk met every kind of time field: " + seen);
    }

    @Test
    void aTimeSentInAnotherFormatIsRefusedNamingTheField() {
        as(ADMIN).get("/api/v1/runs?since=1764547200").then().statusCode(400)
                .body("problems[0]", containsString("since must be an ISO-8601 UTC time such as"));
        String recent = Api.iso(System.currentTimeMillis() / 1000 - 60);
        as(ADMIN).get("/api/v1/runs?since=" + recent).then().statusCode(200);
        // Instant.parse reads each of these; the API has one form and says so, rather than reading a second one
        for (String other : List.of(recent.replace("Z", ".500Z"), recent.replace("Z", "+00:00"), recent.toLowerCase(Locale.ROOT))) {
            as(ADMIN).queryParam("since", other).get("/api/v1/runs").then().statusCode(400)
                    .body("problems[0]", containsString("since must be an ISO-8601 UTC time such as"));
        }
        as(ADMIN).body("{\"scenario\":\"times\",\"computing\":true,\"window\":{\"from\":\"2026-09-24T00:00:00.000Z\",\"to\":\"2026-09-25T00:00:00Z\"}}")
                .put("/api/v1/comparisons/times").then().statusCode(400).body("problems[0]", containsString("window.from"));
    }

    /** Checks every field under node: a time field is null or ISO-8601 UTC; no number anywhere is an epoch. */
    private static void walk(String path, String at, JsonNode node, Set<String> seen) {
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) walk(path, at + "[" + i + "]", node.get(i), seen);
            return;
        }
        if (!node.isObject()) return;
        List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
        node.fields().forEachRemaining(fields::add);
        for (Map.Entry<String, JsonNode> f : fields) {
            String where = path + " " + at + "." + f.getKey();
            JsonNode v = f.getValue();
            if (v.isNumber()) assertTrue(Math.abs(v.asDouble()) < EPOCH_SECONDS_2001, where + " is a number the size of an epoch time: " + v);
            if (TIME_FIELD.matcher(f.getKey()).matches() && !v.isNull() && !v.isContainerNode()) {
                assertTrue(v.isTextual() && ISO.matcher(v.asText()).matches(), where + " is not ISO-8601 UTC to the second: " + v);
                seen.add(f.getKey());
            }
            walk(path, at + "." + f.getKey(), v, seen);
        }
    }

    @Test
    void theApiWritesTimesToTheSecondInUtc() {
        assertEquals("2026-12-02T23:59:00Z", dev.horizon.service.web.ApiTime.ofMillis(1_796_255_940_999L));
        assertEquals("2026-12-02T23:59:00Z", dev.horizon.service.web.ApiTime.ofSeconds(1_796_255_940L));
    }
}
