package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An admin drains a node as Slurm's DRAIN and kubectl drain do: no new work lands there, the work running there moves
 * off as its contract allows, and it takes work again once undrained. On the test profile's two declared 8-GPU nodes.
 */
@QuarkusTest
class NodeDrainTest {
    private static final String RESUMABLE = ",\"contract\":{\"minRuntimeSeconds\":0,\"resumable\":true,\"checkpointCostSeconds\":0}";

    @Inject
    Planner planner;

    @AfterEach
    void undrainAll() {
        for (String node : List.of("node-0", "node-1")) as(ADMIN).delete("/api/v1/nodes/" + node + "/drain");
        Api.cancelEverything();
    }

    private static String wholeNode(String name) {
        return Api.submit(ADMIN, "{\"name\":\"" + name + "\",\"team\":\"drains\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":8},"
                + "\"durationEstimateSeconds\":7200" + RESUMABLE + "}");
    }

    private static String placement(String job) {
        return as(ADMIN).get("/api/v1/jobs/" + job).then().statusCode(200).body("state", equalTo("RUNNING")).extract().path("placement");
    }

    private static String state(String job) {
        return as(ADMIN).get("/api/v1/jobs/" + job).then().statusCode(200).extract().path("state");
    }

    @Test
    void aDrainedNodeTakesNoNewWorkAndItsWorkMovesOffUntilAnAdminUndrainsIt() {
        Api.cancelEverything();
        Api.team("drains", 0.2);
        String first = wholeNode("first");
        planner.planNow();
        String at = placement(first);
        String drained = at.substring(0, at.indexOf('['));
        String other = drained.equals("node-0") ? "node-1" : "node-0";

        as(ADMIN).body("{\"reason\":\"swapping a PSU\"}").put("/api/v1/nodes/" + drained + "/drain").then().statusCode(200)
                .body("drainReason", equalTo("swapping a PSU")).body("health", equalTo("HEALTHY"));
        planner.planNow();
        planner.planNow();
        assertEquals(other, placement(first).substring(0, placement(first).indexOf('[')), "its contract lets it move, so it left " + drained);
        String second = wholeNode("second");
        planner.planNow();
        assertEquals("PENDING", state(second), "the one node that takes work is busy, and " + drained + " is drained");
        as(ADMIN).get("/api/v1/nodes").then().body("drainReason", hasItem("swapping a PSU"));
        as(ADMIN).get("/api/v1/audit").then().body("detail", hasItem(containsString("drained node " + drained + " (swapping a PSU)")));

        as(ADMIN).delete("/api/v1/nodes/" + drained + "/drain").then().statusCode(200).body("drainReason", nullValue());
        as(ADMIN).delete("/api/v1/nodes/" + drained + "/drain").then().statusCode(409).body("error", containsString("is not drained"));
        planner.planNow();
        assertEquals(drained, placement(second).substring(0, placement(second).indexOf('[')), "undrained, it takes work again");
    }

    @Test
    void onlyAnAdminDrainsAndTheDrainNamesWhatIsWrongWithIt() {
        Api.team("drains", 0.2);
        as(Api.token("submitter", "drains")).body("{\"reason\":\"mine\"}").put("/api/v1/nodes/node-0/drain").then().statusCode(403);
        as(Api.token("submitter", "drains")).delete("/api/v1/nodes/node-0/drain").then().statusCode(403);
        as(ADMIN).body("{}").put("/api/v1/nodes/node-0/drain").then().statusCode(400).body("problems[0]", startsWith("reason: required"));
        as(ADMIN).body("{\"reason\":\"" + "x".repeat(1001) + "\"}").put("/api/v1/nodes/node-0/drain").then().statusCode(400)
                .body("problems[0]", equalTo("reason is 1001 characters; the limit is 1000"));
        as(ADMIN).body("{\"reason\":\"gone\"}").put("/api/v1/nodes/nowhere/drain").then().statusCode(404);
        as(ADMIN).get("/api/v1/nodes/node-0").then().body("drainReason", nullValue());
        // a drain of a drained node keeps it drained, with the newer reason
        as(ADMIN).body("{\"reason\":\"first look\"}").put("/api/v1/nodes/node-0/drain").then().statusCode(200);
        as(ADMIN).body("{\"reason\":\"fan replaced, burn-in\"}").put("/api/v1/nodes/node-0/drain").then().statusCode(200)
                .body("drainReason", equalTo("fan replaced, burn-in"));
    }
}
