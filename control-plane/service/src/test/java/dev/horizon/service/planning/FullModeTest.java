package dev.horizon.service.planning;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.Api;
import dev.horizon.service.VirtualClockProfile;
import dev.horizon.service.clock.ServiceClock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CP-SAT's full mode on a moment where the heuristic's value order loses: one free node of 8 GPUs, a 6-GPU job worth 5 a
 * GPU-hour and two 4-GPU jobs worth 4. The heuristic starts the 6-GPU job first (30 an hour, the two others later);
 * CP-SAT starts the two 4-GPU jobs (32 an hour) and the 6-GPU one after them, which scores higher as rewards decay.
 */
@QuarkusTest
@TestProfile(VirtualClockProfile.class)
class FullModeTest {
    @Inject
    Planner planner;
    @Inject
    FullMode fullMode;
    @Inject
    ServiceClock clock;

    @Test
    void aStrictlyBetterPlanIsAdoptedAndThePlanSaysSo() {
        List<String> small = setUp();
        FullMode.Run run = fullMode.runOnce();
        assertEquals("adopted", run.outcome(), "CP-SAT found the better order: " + run);
        assertTrue(run.cpSatObjective() > run.heuristicObjective() && run.gain() > 0, run.toString());
        for (String id : small) assertEquals("RUNNING", state(id), "CP-SAT's plan starts the two 4-GPU jobs now");
        as(ADMIN).get("/api/v1/plan").then().statusCode(200).body("mode", equalTo("cpsat")).body("cpSatGain", greaterThan(0f))
                .body("fullMode.outcome", equalTo("adopted"));
    }

    @Test
    void aPlanThatOnlyTiesTheHeuristicIsNotAdopted() {
        Api.cancelEverything();
        Api.noBudgets();
        Api.budget("solvers", 0);
        clock.advanceTo(clock.millis() + 60_000);
        Api.submit(ADMIN, job("alone", 3, 2));
        FullMode.Run run = fullMode.runOnce();
        assertEquals("kept-heuristic", run.outcome(), "one job has one best plan, which the heuristic already has: " + run);
        assertEquals(run.heuristicObjective(), run.cpSatObjective(), 1e-9);
    }

    @Test
    void aPlanMadeOnAMomentThatChangedIsNotAdopted() {
        setUp();
        Planner.Moment before = planner.moment();
        Api.submit(ADMIN, job("late", 1, 1));
        PlanningPolicy.Outcome outcome = new PlanningPolicy.Outcome(new dev.horizon.allocator.model.Decision(), "cpsat", List.of());
        assertFalse(planner.adopt(before, outcome, 0.1), "a job arrived while CP-SAT solved: its plan no longer holds");
    }

    @Test
    void aPlanMadeBeforeANodeWasDrainedIsNotAdopted() {
        setUp();
        Planner.Moment before = planner.moment();
        as(ADMIN).body("{\"reason\":\"while CP-SAT solved\"}").put("/api/v1/nodes/node-1/drain").then().statusCode(200);
        try {
            PlanningPolicy.Outcome outcome = new PlanningPolicy.Outcome(new dev.horizon.allocator.model.Decision(), "cpsat", List.of());
            assertFalse(planner.adopt(before, outcome, 0.1), "node-1 was drained while CP-SAT solved: its plan may place work there");
        } finally {
            as(ADMIN).delete("/api/v1/nodes/node-1/drain").then().statusCode(200);
        }
    }

    /** One node taken by a long job, the three jobs waiting for the other; the heuristic has planned them. Returns the two small ones. */
    private List<String> setUp() {
        Api.cancelEverything();
        Api.noBudgets();
        Api.budget("solvers", 0);
        clock.advanceTo(clock.millis() + 60_000);
        Api.submit(ADMIN, "{\"name\":\"holder\",\"team\":\"solvers\",\"class\":\"TRAINING\",\"priority\":9,\"perReplica\":{\"gpus\":8},"
                + "\"durationEstimateSeconds\":28800}");
        planner.planNow();
        clock.advanceTo(clock.millis() + 1_000);
        Api.submit(ADMIN, job("wide", 5, 6));
        List<String> small = List.of(Api.submit(ADMIN, job("small-a", 4, 4)), Api.submit(ADMIN, job("small-b", 4, 4)));
        return small;
    }

    private static String job(String name, int priority, int gpus) {
        return "{\"name\":\"" + name + "\",\"team\":\"solvers\",\"class\":\"BATCH_INFERENCE\",\"priority\":" + priority + ",\"perReplica\":{\"gpus\":"
                + gpus + "},\"durationEstimateSeconds\":3600}";
    }

    private static String state(String id) {
        return as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path("state");
    }
}
