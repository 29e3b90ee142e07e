package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.forecast.DemandForecaster;
import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@QuarkusTest
class InferenceServiceApiTest {
    @Inject
    Planner planner;

    private static String service(String name, String team) {
        return "{\"name\":\"" + name + "\",\"team\":\"" + team + "\",\"weightPerGpuHour\":20,\"swapCapGpus\":2}";
    }

    @Test
    void aSubmitterDeclaresItsTeamsServiceAgentsReportDemandAndTheForecastFollowsTheStore() {
        Api.team("serving", 0.2);
        String submitter = Api.token("submitter", "serving");
        String servedByGpu1 = service("chat", "serving").replace("}", ",\"servedBy\":[\"gpu-1\"]}");
        as(submitter).body(servedByGpu1).post("/api/v1/inference-services").then().statusCode(201).body("servedBy", equalTo(List.of("gpu-1")))
                .header("Location", containsString("/api/v1/inference-services/chat")).body("observedSteps", equalTo(0))
                .body("lastDemand", nullValue()).body("forecast", hasSize(96));

        // the agent of a node serving it reports its demand; another node's agent may not
        String gpu1 = as(ADMIN).body("{\"role\":\"agent\",\"node\":\"gpu-1\"}").post("/api/v1/tokens").then().statusCode(201).extract().path("token");
        String gpu2 = as(ADMIN).body("{\"role\":\"agent\",\"node\":\"gpu-2\"}").post("/api/v1/tokens").then().statusCode(201).extract().path("token");
        as(gpu2).body("{\"gpus\":[100000]}").post("/api/v1/inference-services/chat/demand").then().statusCode(403)
                .body("error", containsString("this credential is node gpu-2's, and service chat (served by [gpu-1]) is not on that node"));
        as(Api.token("agent", null)).body("{\"gpus\":[1]}").post("/api/v1/inference-services/chat/demand").then().statusCode(403)
                .body("error", containsString("enrollment token"));
        as(gpu1).body("{\"gpus\":[2,3,4]}").post("/api/v1/inference-services/chat/demand").then().statusCode(200)
                .body("observedSteps", equalTo(3)).body("lastDemand", equalTo(4.0f));
        as(ADMIN).body("{\"gpus\":[5],\"heldGpus\":3}").post("/api/v1/inference-services/chat/demand").then().statusCode(200)
                .body("observedSteps", equalTo(4)).body("heldGpus", equalTo(3));

        // the forecast is the allocator's forecaster fed with the stored steps in order, as a restart rebuilds it
        DemandForecaster expected = new DemandForecaster(96, 7);
        List.of(2.0, 3.0, 4.0, 5.0).forEach(expected::observe);
        List<Float> forecast = as(submitter).get("/api/v1/inference-services/chat").then().statusCode(200).extract().path("forecast");
        double[] want = expected.forecast(96);
        for (int k = 0; k < 96; k++) assertEquals(want[k], forecast.get(k), 1e-6, "forecast step " + k);
        as(submitter).get("/api/v1/inference-services").then().statusCode(200).body("name", hasItem("chat"));

        as(submitter).delete("/api/v1/inference-services/chat").then().statusCode(204);
        as(ADMIN).get("/api/v1/inference-services/chat").then().statusCode(404);
    }

    @Test
    void thePlanReservesGpusForTheForecastDemand() {
        PlannerTest.cancelEverything();
        // without budgets, so every job runs protected where the plan puts it and nowhere else
        Api.noBudgets();
        Api.team("reserving", 0);
        as(ADMIN).body(service("search", "reserving")).post("/api/v1/inference-services").then().statusCode(201);
        try {
            as(ADMIN).body("{\"gpus\":[6,6,6,6]}").post("/api/v1/inference-services/search/demand").then().statusCode(200);
            Api.submit(ADMIN, Api.job("r1", "reserving", "QUANTIZATION", 8));
            Api.submit(ADMIN, Api.job("r2", "reserving", "QUANTIZATION", 8));
            planner.planNow();
            // the reservation is the forecast itself (each slot's busiest minute over the week): the 6 GPUs demanded
            int reserved = as(ADMIN).get("/api/v1/plan").then().statusCode(200).body("inferenceReservedGpus.search", greaterThanOrEqualTo(6))
                    .extract().path("inferenceReservedGpus.search");
            List<Map<String, Object>> running = as(ADMIN).get("/api/v1/plan").then().extract().path("running");
            long protectedGpus = running.stream().filter(r -> !(Boolean) r.get("fill")).count() * 8;
            // without the service both 8-GPU jobs would run protected on the 16 GPUs
            assertTrue(protectedGpus + reserved <= 16, "protected jobs " + protectedGpus + " GPUs beside " + reserved + " reserved");
        } finally {
            as(ADMIN).delete("/api/v1/inference-services/search").then().statusCode(204);
            PlannerTest.cancelEverything();
        }
    }

    @Test
    void gpusAnInferenceServiceHoldsTakeNoBatchWorkAndAnEvictedJobWaitsAgain() {
        PlannerTest.cancelEverything();
        Api.noBudgets();
        Api.team("holding", 0);
        as(ADMIN).body(service("held", "holding")).post("/api/v1/inference-services").then().statusCode(201);
        try {
            List<String> node0 = as(ADMIN).get("/api/v1/nodes/node-0").then().statusCode(200).extract().path("gpus.uuid");
            as(ADMIN).body("{\"gpuUuids\":[\"GPU-nope\"]}").put("/api/v1/inference-services/held/held").then().statusCode(422)
                    .body("problems[0]", containsString("gpuUuids[0]"));
            as(ADMIN).body("{\"gpuUuids\":[\"" + node0.get(0) + "\"]}").put("/api/v1/inference-services/held/held").then().statusCode(200)
                    .body("heldGpus", equalTo(1));
            String a = Api.submit(ADMIN, Api.job("a", "holding", "QUANTIZATION", 8));
            String b = Api.submit(ADMIN, Api.job("b", "holding", "QUANTIZATION", 8));
            planner.planNow();
            List<String> states = List.of(a, b).stream().map(id -> as(ADMIN).get("/api/v1/jobs/" + id).then().extract().<String>path("state")).toList();
            assertEquals(1, states.stream().filter("RUNNING"::equals).count(), "one GPU of node-0 serves inference: one 8-GPU job waits " + states);
            String running = states.get(0).equals("RUNNING") ? a : b;
            as(ADMIN).get("/api/v1/jobs/" + running).then().body("placement", equalTo("node-1[0-7]"));

            as(ADMIN).body("{\"state\":\"EVICTED\"}").post("/api/v1/jobs/" + running + "/outcome").then().statusCode(200)
                    .body("state", equalTo("PENDING")).body("preemptions", equalTo(1));
            as(ADMIN).delete("/api/v1/jobs/" + running).then().statusCode(200);
            as(ADMIN).body("{\"state\":\"EVICTED\"}").post("/api/v1/jobs/" + running + "/outcome").then().statusCode(409);
        } finally {
            as(ADMIN).delete("/api/v1/inference-services/held").then().statusCode(204);
            PlannerTest.cancelEverything();
        }
    }

    /**
     * The demo's NODE_LOST on a healthy node: a service said it holds a GPU a job had just started on (no EVICTED outcome
     * came first). The plan takes the job off as EVICTED, never NODE_LOST, and the node stays healthy.
     */
    @Test
    void aJobWhoseGpuAServiceTakesIsEvictedNotLostOnAHealthyNode() {
        PlannerTest.cancelEverything();
        Api.noBudgets();
        Api.team("taken", 0);
        as(ADMIN).body(service("taker", "taken")).post("/api/v1/inference-services").then().statusCode(201);
        try {
            String job = Api.submit(ADMIN, Api.job("on-node-1", "taken", "QUANTIZATION", 8));
            planner.planNow();
            String placement = as(ADMIN).get("/api/v1/jobs/" + job).then().body("state", equalTo("RUNNING")).extract().path("placement");
            String node = placement.substring(0, placement.indexOf('['));
            String gpu = as(ADMIN).get("/api/v1/nodes/" + node).then().extract().path("gpus[0].uuid");
            as(ADMIN).body("{\"gpuUuids\":[\"" + gpu + "\"]}").put("/api/v1/inference-services/taker/held").then().statusCode(200);
            planner.planNow();
            List<String> endReasons = as(ADMIN).get("/api/v1/runs").then().statusCode(200).extract()
                    .path("findAll { it.jobId == '" + job + "' && it.endReason != null }.endReason");
            assertEquals(List.of("EVICTED"), endReasons, "its run was taken by the service, not lost with its node");
            as(ADMIN).get("/api/v1/nodes/" + node).then().body("health", equalTo("HEALTHY"));
        } finally {
            as(ADMIN).delete("/api/v1/inference-services/taker").then().statusCode(204);
            PlannerTest.cancelEverything();
        }
    }

    @Test
    void badServicesAndReportsAreRefusedAndRolesAreChecked() {
        Api.team("infer-a", 0.1);
        Api.team("infer-b", 0.1);
        String submitterA = Api.token("submitter", "infer-a");
        as(ADMIN).body("{\"name\":\"Bad\",\"team\":\"infer-a\",\"weightPerGpuHour\":-1,\"swapCapGpus\":0}").post("/api/v1/inference-services")
                .then().statusCode(400).body("problems", hasItem(containsString("name")))
                .body("problems", hasItem(containsString("weightPerGpuHour"))).body("problems", hasItem(containsString("swapCapGpus")));
        as(ADMIN).body("{\"name\":\"x\",\"team\":\"infer-a\",\"weightPerGpuHour\":\"lots\",\"swapCapGpus\":1}").post("/api/v1/inference-services")
                .then().statusCode(400).body("problems[0]", containsString("weightPerGpuHour"));
        as(ADMIN).body(service("ghost-svc", "ghost")).post("/api/v1/inference-services").then().statusCode(422)
                .body("problems[0]", containsString("team"));
        as(submitterA).body(service("not-mine", "infer-b")).post("/api/v1/inference-services").then().statusCode(403)
                .body("error", containsString("infer-a"));
        as(submitterA).body(service("mine", "infer-a")).post("/api/v1/inference-services").then().statusCode(201);
        as(submitterA).body(service("mine", "infer-a")).post("/api/v1/inference-services").then().statusCode(409);

        as(submitterA).body("{\"gpus\":[1]}").post("/api/v1/inference-services/mine/demand").then().statusCode(403)
                .body("error", containsString("agent or admin"));
        as(ADMIN).body("{\"gpus\":[]}").post("/api/v1/inference-services/mine/demand").then().statusCode(400)
                .body("problems[0]", containsString("gpus"));
        as(ADMIN).body("{\"gpus\":[1,-2,1e9],\"heldGpus\":-1}").post("/api/v1/inference-services/mine/demand").then().statusCode(400)
                .body("problems", hasItem(containsString("gpus[1]"))).body("problems", hasItem(containsString("gpus[2]")))
                .body("problems", hasItem(containsString("heldGpus")));
        as(ADMIN).body("{\"gpus\":[1]}").post("/api/v1/inference-services/nope/demand").then().statusCode(404);
        as(ADMIN).get("/api/v1/inference-services/mine").then().body("observedSteps", equalTo(0));

        given().get("/api/v1/inference-services").then().statusCode(401);
        as("wrong").body("{\"gpus\":[1]}").post("/api/v1/inference-services/mine/demand").then().statusCode(401);
        as(ADMIN).delete("/api/v1/inference-services/mine").then().statusCode(204);
    }
}
