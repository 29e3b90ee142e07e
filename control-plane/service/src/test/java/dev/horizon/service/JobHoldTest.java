package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.ISO_SECOND;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A team holds a waiting job (Slurm's scontrol hold): on a cluster with free GPUs no plan starts it, its explanation
 * says who holds it since when and how to let it go, and once released the next plan starts it. Only a waiting job is
 * held, and only by its own team or an admin, as cancel allows. On a virtual clock, so only the test's plans run, with
 * start-time bands on: two 8-GPU nodes.
 */
@QuarkusTest
@TestProfile(VirtualClockProfile.class)
class JobHoldTest {
    @Inject
    Planner planner;

    @AfterEach
    void emptyQueue() {
        Api.cancelEverything();
    }

    private static String state(String job) {
        return as(ADMIN).get("/api/v1/jobs/" + job).then().statusCode(200).extract().path("state");
    }

    @Test
    void aHeldJobNeverStartsOnFreeGpusAndTheNextPlanAfterItsReleaseStartsIt() {
        Api.cancelEverything();
        Api.team("holds", 0.2);
        String mine = Api.token("submitter", "holds");
        String job = Api.submit(mine, Api.job("sft-run", "holds", "TRAINING", 1));

        as(mine).post("/api/v1/jobs/" + job + "/hold").then().statusCode(200).body("said", equalTo("held job " + job))
                .body("job.state", equalTo("PENDING")).body("job.heldBy", containsString("(submitter of team holds)"))
                .body("job.heldAt", matchesPattern(ISO_SECOND));
        as(mine).post("/api/v1/jobs/" + job + "/hold").then().statusCode(200).body("said", containsString("was already held by"))
                .body("said", containsString("nothing changed"));
        Planner.PlanSnapshot plan = planner.planNow();
        assertEquals(0, plan.started(), "16 GPUs are free, but the job is held: the plan starts nothing");
        assertFalse(plan.estimatedSecondsLeft().containsKey(job), "a held job is left out of the plan's moment, as a cancelled one is");
        planner.planNow();
        assertEquals("PENDING", state(job), "it stays waiting");
        String heldAt = as(mine).get("/api/v1/jobs/" + job).then().extract().path("heldAt");
        as(mine).get("/api/v1/jobs/" + job + "/explanation").then().statusCode(200).body("rule", equalTo("held"))
                .body("reason", matchesPattern("held by token \\w+ \\(submitter of team holds\\) since " + heldAt + "; \\./horizon release sft-run lets it start"))
                .body("plannedStartAt", nullValue()).body("startP50At", nullValue()).body("startBandNote", startsWith("held since " + heldAt))
                .body("alternatives.size()", equalTo(0)).body("ahead.size()", equalTo(0));
        as(mine).get("/api/v1/jobs/" + job).then().body("startBandNote", startsWith("held since")).body("plannedStart", nullValue());
        List<String> heldInPlan = as(ADMIN).get("/api/v1/plan").then().statusCode(200).extract().path("pending.findAll { it.jobId == '" + job + "' }.heldAt");
        assertEquals(List.of(heldAt), heldInPlan, "the plan's waiting list says it is held, for the web view");

        as(mine).post("/api/v1/jobs/" + job + "/release").then().statusCode(200).body("said", startsWith("released job " + job + ", held by"))
                .body("job.heldBy", nullValue()).body("job.heldAt", nullValue());
        as(mine).post("/api/v1/jobs/" + job + "/release").then().statusCode(200).body("said", containsString("was not held"));
        List<String> audited = as(ADMIN).get("/api/v1/audit?limit=20").then().statusCode(200).extract().path("detail");
        assertTrue(audited.contains("held job " + job), "a submitter's hold is audited, as its cancel is: " + audited);
        planner.planNow();
        assertEquals("RUNNING", state(job), "released, the next plan starts it on the free GPUs");

        as(mine).post("/api/v1/jobs/" + job + "/hold").then().statusCode(409)
                .body("error", equalTo("job " + job + " is RUNNING and only a waiting (PENDING) job can be held; cancel it, or wait for it to end"));
    }

    @Test
    void onlyItsOwnTeamOrAnAdminHoldsOrReleasesAJobAsForCancel() {
        Api.team("holds", 0.2);
        Api.team("others", 0.2);
        String job = Api.submit(ADMIN, Api.job("theirs", "holds", "DEBUG", 1));
        String other = Api.token("submitter", "others");
        as(other).post("/api/v1/jobs/" + job + "/hold").then().statusCode(403).body("error", containsString("bound to team 'others'"));
        as(Api.token("agent", null)).post("/api/v1/jobs/" + job + "/hold").then().statusCode(403);
        as(ADMIN).post("/api/v1/jobs/" + job + "/hold").then().statusCode(200).body("job.heldBy", containsString("admin"));
        as(other).post("/api/v1/jobs/" + job + "/release").then().statusCode(403);
        as(other).get("/api/v1/jobs/" + job).then().statusCode(403);
        as(ADMIN).post("/api/v1/jobs/nope/hold").then().statusCode(404);
        as(ADMIN).delete("/api/v1/jobs/" + job).then().statusCode(200).body("state", equalTo("CANCELLED")).body("heldAt", nullValue());
        as(ADMIN).post("/api/v1/jobs/" + job + "/hold").then().statusCode(409).body("error", containsString("it has finished"));
    }
}
