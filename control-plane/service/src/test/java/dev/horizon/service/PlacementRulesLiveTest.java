package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The job JSON's placement rules reach the allocator through the service's plans (issue 15's first reproduction). */
@QuarkusTest
@TestProfile(VirtualClockProfile.class)
class PlacementRulesLiveTest {
    @Inject
    Planner planner;
    @Inject
    ServiceClock clock;

    @Test
    void wholeGpuJobsAskingForA100sStartOnlyOnTheA100Node() {
        PlannerTest.cancelEverything();
        Api.noBudgets();
        Api.budget("models", 0);
        clock.advanceTo(clock.millis() + 60_000);
        String a100 = "{\"name\":\"x\",\"team\":\"models\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":4,\"gpuTypes\":[\"A100-80GB\"]},"
                + "\"durationEstimateSeconds\":3600}";
        List<String> jobs = List.of(Api.submit(ADMIN, a100), Api.submit(ADMIN, a100), Api.submit(ADMIN, a100));
        planner.planNow();
        List<String> placements = jobs.stream().map(id -> as(ADMIN).get("/api/v1/jobs/" + id).then().extract().<String>path("placement")).toList();
        assertEquals(2, placements.stream().filter(p -> p != null).count(), "two fill the A100 node: " + placements);
        assertTrue(placements.stream().allMatch(p -> p == null || p.startsWith("node-1[")), "none on the H100 node (node-0): " + placements);
        String waiting = jobs.get(placements.indexOf(null));
        String rule = as(ADMIN).get("/api/v1/jobs/" + waiting + "/explanation").then().extract().path("rule");
        assertTrue(List.of("planned-start", "no-room-in-horizon").contains(rule), "the third waits for the A100s, with the H100s idle: " + rule);
    }
}
