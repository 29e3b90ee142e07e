package dev.horizon.service;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.planning.Planner;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.util.List;
import org.junit.jupiter.api.Test;

@QuarkusTest
class HealthAndMetricsTest {
    @Inject
    Planner planner;
    @TestHTTPResource(value = "/", management = true)
    URL management;

    @Test
    void probesNeedNoTokenAndReadinessWaitsForAPlan() {
        planner.planNow();
        given().get(management + "health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().get(management + "health/started").then().statusCode(200).body("status", equalTo("UP"));
        given().get(management + "health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.find { it.name == 'planner' }.data.plannerHasRun", equalTo(true));
    }

    @Test
    void prometheusMetricsCarryTheDesignNames() {
        Api.team("metrics", 0.1);
        // three 8-GPU jobs on 16 GPUs: at least one waits, so the queue-depth gauge has a (class, team) series
        for (int i = 0; i < 3; i++) Api.submit(Api.ADMIN, Api.job("m" + i, "metrics", "QUANTIZATION", 8));
        planner.planNow();
        given().get(management + "metrics").then().statusCode(200)
                .body(containsString("horizon_utilization"))
                .body(containsString("horizon_queue_depth{"))
                .body(containsString("horizon_decision_latency_seconds_count"))
                .body(containsString("horizon_preemptions_total"));
    }

    @Test
    void latenciesAreHistogramsAndLeadershipPlansAndNodesAreThereForTheAlerts() throws InterruptedException {
        planner.planNow();
        String metrics = given().get(management + "metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("horizon_decision_latency_seconds_bucket{le=\"0.05\"}"), "buckets Prometheus can take quantiles of");
        assertFalse(metrics.contains("horizon_decision_latency_seconds{quantile="), "no percentile computed in the service");
        assertTrue(metrics.contains("horizon_leader 1.0"), "the only replica leads");
        assertTrue(metrics.matches("(?s).*horizon_leader_epoch [1-9].*"), "at a real epoch");
        assertTrue(metrics.matches("(?s).*horizon_leader_elections_total [1-9].*"), "it won at least one election");
        assertTrue(metrics.matches("(?s).*horizon_last_plan_timestamp_seconds 1\\.[0-9]+E9.*"), "the last plan's time: " + metrics.lines()
                .filter(l -> l.startsWith("horizon_last_plan")).toList());
        // the node gauges are refreshed every 15 s from the store
        java.util.List<String> health = Api.as(Api.ADMIN).get("/api/v1/nodes").then().extract().path("health");
        String healthy = "horizon_nodes{health=\"HEALTHY\"} " + health.stream().filter("HEALTHY"::equals).count() + ".0";
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!given().get(management + "metrics").asString().contains(healthy)) {
            assertTrue(System.nanoTime() < deadline, healthy + " within 20 s, as GET /api/v1/nodes says");
            Thread.sleep(500);
        }
    }

    @Test
    void aNodeAnAdminDrainedIsCountedApartFromItsHealth() throws InterruptedException {
        Api.as(Api.ADMIN).body("{\"reason\":\"firmware update\"}").put("/api/v1/nodes/node-0/drain").then().statusCode(200);
        try {
            awaitMetric("horizon_nodes_drained 1.0");
        } finally {
            Api.as(Api.ADMIN).delete("/api/v1/nodes/node-0/drain").then().statusCode(200);
        }
        awaitMetric("horizon_nodes_drained 0.0");
    }

    /** The node gauges are refreshed every 15 s from the store. */
    private void awaitMetric(String line) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!given().get(management + "metrics").asString().contains(line)) {
            assertTrue(System.nanoTime() < deadline, line + " within 20 s");
            Thread.sleep(500);
        }
    }

    @Test
    void owedGpuHoursDeliveredIsAGaugePerTeamAndATeamField() throws InterruptedException {
        PlannerTest.cancelEverything();
        Api.team("owed", 0.3);
        Api.submit(Api.ADMIN, Api.job("o", "owed", "QUANTIZATION", 1));
        planner.planNow();
        // let the job run (and be owed) for whole seconds, which is how the store counts time
        Thread.sleep(2100);
        planner.planNow();
        Api.as(Api.ADMIN).get("/api/v1/teams/owed").then().statusCode(200)
                .body("owedGpuHoursDelivered", allOf(greaterThan(0f), lessThanOrEqualTo(1f)));
        // the gauges are refreshed every 15 s on every replica, off the planner's thread
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!given().get(management + "metrics").asString().matches("(?s).*horizon_owed_gpu_hours_delivered\\{team=\"owed\"} [01]\\.[0-9].*")) {
            assertTrue(System.nanoTime() < deadline, "horizon_owed_gpu_hours_delivered{team=owed} within 20 s");
            Thread.sleep(500);
        }
        String metrics = given().get(management + "metrics").asString();
        assertTrue(metrics.contains("horizon_owed_gpu_hours{team=\"owed\"}") && metrics.contains("horizon_delivered_gpu_hours{team=\"owed\"}"),
                "owed and delivered GPU-hours beside the ratio");
        PlannerTest.cancelEverything();
    }

    @Test
    void openApiDescribesTheJobsEndpoint() {
        given().get(management + "openapi").then().statusCode(200).body(containsString("/api/v1/jobs/{id}/explanation"));
    }

    /** The API port, which data scientists and agents reach, serves none of the management endpoints. */
    @Test
    void managementEndpointsAreNotOnTheApiPort() {
        for (String path : List.of("/q/metrics", "/q/health", "/q/health/ready", "/q/openapi")) {
            given().get(path).then().statusCode(404);
            Api.as(Api.ADMIN).get(path).then().statusCode(404);
        }
    }
}
