package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

@QuarkusTest
class PlannerTest {
    @Inject
    Planner planner;

    @Test
    void plansStartWhatFitsExplainWhatWaitsAndReplanningChangesNothing() {
        cancelEverything();
        Api.budget("robotics", 0.4);
        String a = Api.submit(ADMIN, Api.job("a", "robotics", "QUANTIZATION", 8));
        String b = Api.submit(ADMIN, Api.job("b", "robotics", "QUANTIZATION", 8));
        String c = Api.submit(ADMIN, Api.job("c", "robotics", "QUANTIZATION", 8));
        planner.planNow();

        List<String> states = List.of(state(a), state(b), state(c));
        assertEquals(2, states.stream().filter("RUNNING"::equals).count(), "two 8-GPU jobs fill the 16 GPUs: " + states);
        String waiting = List.of(a, b, c).get(states.indexOf("PENDING"));
        // fair share: robotics is owed the 16 GPUs its jobs fill, so its third job runs only as fill on idle GPUs
        as(ADMIN).get("/api/v1/jobs/" + waiting + "/explanation").then().statusCode(200).body("state", equalTo("PENDING"))
                .body("rule", equalTo("over-share")).body("reason", containsString("runs as unallocated fill"))
                .body("queuePosition", equalTo(1));
        // the three are alike and may arrive in one second, so which two run is not fixed (the tie falls to their ids)
        String running = List.of(a, b, c).get(states.indexOf("RUNNING"));
        as(ADMIN).get("/api/v1/jobs/" + running + "/explanation").then()
                .body("state", equalTo("RUNNING")).body("reason", containsString("running on node-"));

        String before = activeJobs();
        planner.planNow();
        assertEquals(before, activeJobs(), "a plan with nothing new to decide changes nothing");

        as(ADMIN).get("/api/v1/plan").then().statusCode(200).body("totalGpus", equalTo(16)).body("busyGpus", equalTo(16))
                .body("running.jobId", hasItem(running)).body("pending[0].jobId", equalTo(waiting)).body("mode", equalTo("heuristic"));

        as(ADMIN).body("{\"state\":\"SUCCEEDED\"}").post("/api/v1/jobs/" + running + "/outcome").then().statusCode(200)
                .body("state", equalTo("SUCCEEDED"));
        planner.planNow();
        assertEquals("RUNNING", state(waiting), "the finished job's GPUs go to the waiting one");
        as(ADMIN).body("{\"state\":\"FAILED\"}").post("/api/v1/jobs/" + running + "/outcome").then().statusCode(409);
    }

    /** A running job's reason names its GPUs as ./horizon jobs and the web view do: node-1[4], not the stored node-1[4-4]. */
    @Test
    void aRunningJobsReasonSaysOneGpuAsTheNodelistDoes() {
        cancelEverything();
        Api.budget("robotics", 0.4);
        String one = Api.submit(ADMIN, Api.job("one", "robotics", "QUANTIZATION", 1));
        planner.planNow();

        String placement = as(ADMIN).get("/api/v1/jobs/" + one).then().extract().path("placement");
        Matcher stored = Pattern.compile("(.+)\\[(\\d+)-\\2]").matcher(placement);
        assertTrue(stored.matches(), "the store keeps a one-GPU range: " + placement);
        as(ADMIN).get("/api/v1/jobs/" + one + "/explanation").then().statusCode(200)
                .body("reason", equalTo("running on " + stored.group(1) + "[" + stored.group(2) + "]"));
    }

    private static String state(String id) {
        return as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path("state");
    }

    /** state, placement and queue position of every active job: what a repeated plan must leave alone. */
    private static String activeJobs() {
        JsonPath jobs = as(ADMIN).get("/api/v1/jobs").then().extract().jsonPath();
        List<Map<String, Object>> all = jobs.getList("$");
        return all.stream().filter(j -> !"CANCELLED".equals(j.get("state")) && !"SUCCEEDED".equals(j.get("state")))
                .map(j -> j.get("id") + " " + j.get("state") + " " + j.get("placement") + " " + j.get("plannedStart")).toList().toString();
    }

    static void cancelEverything() {
        Api.cancelEverything();
    }
}
