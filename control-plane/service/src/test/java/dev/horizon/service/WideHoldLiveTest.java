package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.planning.Planner;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The nodes a plan holds for a wide job reach the adapters from a live control plane: {@code /api/v1/plan} names them once
 * the job has waited its patience, and the client whose answer the adapters' serving GPUs read (see the Kubeflow adapter's
 * {@code InferenceScalingTest} for what they do with it) gets the same names.
 */
@QuarkusTest
@TestProfile(VirtualClockProfile.class)
class WideHoldLiveTest {
    private static final String TEAM = "wide";

    @Inject
    Planner planner;
    @Inject
    ServiceClock clock;
    @TestHTTPResource("/")
    URI root;

    private static String smallUrgentJob(String name, String model) {
        return "{\"name\":\"" + name + "\",\"team\":\"" + TEAM + "\",\"class\":\"TRAINING\",\"priority\":8,"
                + "\"perReplica\":{\"gpus\":4,\"gpuTypes\":[\"" + model + "\"]},\"durationEstimateSeconds\":21600}";
    }

    private static List<String> heldInPlan() {
        return as(ADMIN).get("/api/v1/plan").then().statusCode(200).extract().path("nodesHeldForWideJob");
    }

    @Test
    void aWideJobThatWaitedAnHourHasNodesHeldThatThePlanAndTheAdaptersClientName() {
        PlannerTest.cancelEverything();
        Api.noBudgets();
        Api.budget(TEAM, 0);
        clock.advanceTo(clock.millis() + 60_000);
        // urgent work on both nodes that the wide job does not outrank, so it cannot start by taking their GPUs
        List<String> small = List.of(Api.submit(ADMIN, smallUrgentJob("urgent-h100", "H100-80GB")),
                Api.submit(ADMIN, smallUrgentJob("urgent-a100", "A100-80GB")));
        planner.planNow();
        small.forEach(id -> assertNotNull(as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path("placement"), "the small job runs"));
        String wide = Api.submit(ADMIN, "{\"name\":\"wide-gang\",\"team\":\"" + TEAM + "\",\"class\":\"TRAINING\",\"priority\":1,\"replicas\":2,"
                + "\"perReplica\":{\"gpus\":8,\"gpuTypes\":[\"H100-80GB\",\"A100-80GB\"]},\"mixModels\":true,\"durationEstimateSeconds\":3600}");
        planner.planNow();
        assertNull(as(ADMIN).get("/api/v1/jobs/" + wide).then().extract().path("placement"), "no node has room for 16 GPUs");
        assertEquals(List.of(), heldInPlan(), "a wide job that has not yet waited its patience has no nodes held");

        clock.advanceTo(clock.millis() + 61 * 60_000);
        planner.planNow();
        assertEquals(List.of("node-0", "node-1"), heldInPlan().stream().sorted().toList(), "16 GPUs take both 8-GPU nodes");
        String reason = as(ADMIN).get("/api/v1/jobs/" + wide + "/explanation").then().extract().path("reason");
        assertTrue(reason.contains("held for it"), "the held-for job is told: " + reason);
        assertEquals(Set.of("node-0", "node-1"), new RestSchedulerClient(root, ADMIN).gpus().heldForWideJob(),
                "the adapters' client reads the held nodes from the live plan");

        as(ADMIN).delete("/api/v1/jobs/" + wide).then().statusCode(200);
        planner.planNow();
        assertEquals(List.of(), heldInPlan(), "with the wide job gone, nothing is held");
        assertEquals(Set.of(), new RestSchedulerClient(root, ADMIN).gpus().heldForWideJob());
    }
}
