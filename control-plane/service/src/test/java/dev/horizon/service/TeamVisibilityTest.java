package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.horizon.service.planning.Planner;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** A submitter sees its own team's jobs in full and another team's only as the plan must show them; admins see all. */
@QuarkusTest
class TeamVisibilityTest {
    @Inject
    Planner planner;

    @Test
    void anotherTeamsJobShowsOnlyAsThePlanShowsIt() {
        PlannerTest.cancelEverything();
        Api.team("owners", 0.3);
        Api.team("others", 0.3);
        String owners = Api.token("submitter", "owners");
        String others = Api.token("submitter", "others");
        String job = Api.submit(owners, "{\"name\":\"private-model\",\"team\":\"owners\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":4},"
                + "\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"owners\",\"name\":\"private-model\"}}");
        planner.planNow();

        as(others).get("/api/v1/jobs/" + job).then().statusCode(403).body("error", containsString("belongs to team 'owners'"));
        as(others).get("/api/v1/jobs/" + job + "/explanation").then().statusCode(403);
        String listed = as(others).get("/api/v1/jobs").then().statusCode(200).body("id", hasItem(job))
                .body("find { it.id == '" + job + "' }.name", nullValue()).body("find { it.id == '" + job + "' }.spec", nullValue())
                .body("find { it.id == '" + job + "' }.gpus", equalTo(4)).body("find { it.id == '" + job + "' }.state", equalTo("RUNNING"))
                .extract().asString();
        assertFalse(listed.contains("private-model"), listed);
        String plan = as(others).get("/api/v1/plan").then().statusCode(200).body("busyGpus", equalTo(4))
                .body("running.find { it.jobId == '" + job + "' }.team", equalTo("owners"))
                .body("running.find { it.jobId == '" + job + "' }.placement", not(nullValue())).extract().asString();
        assertFalse(plan.contains("private-model"), plan);
        String runs = as(others).get("/api/v1/runs").then().statusCode(200).body("jobId", hasItem(job))
                .body("find { it.jobId == '" + job + "' }.team", equalTo("owners")).extract().asString();
        assertFalse(runs.contains("private-model"), runs);
        as(owners).get("/api/v1/runs").then().body("find { it.jobId == '" + job + "' }.name", equalTo("private-model"));

        as(owners).get("/api/v1/jobs/" + job).then().statusCode(200).body("name", equalTo("private-model")).body("spec.source.kind", equalTo("PyTorchJob"));
        as(ADMIN).get("/api/v1/jobs/" + job).then().statusCode(200).body("name", equalTo("private-model"));
        as(ADMIN).get("/api/v1/plan").then().body("running.find { it.jobId == '" + job + "' }.name", equalTo("private-model"));
        assertEquals("private-model", as(owners).get("/api/v1/plan").then().extract().path("running.find { it.jobId == '" + job + "' }.name"));
        PlannerTest.cancelEverything();
    }
}
