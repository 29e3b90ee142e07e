package dev.horizon.service;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

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
        given().get(management + "metrics").then().statusCode(200).body(containsString("horizon_owed_gpu_hours_delivered{team=\"owed\"}"));
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
