package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@QuarkusTest
class TeamApiTest {
    @Test
    void adminsCreateTeamsInATreeAndSetBudgets() {
        // not research, whose own jobs HeartbeatTest submits: a team with a sub-team takes none
        as(ADMIN).body("{\"name\":\"lab\",\"share\":0.6}").post("/api/v1/teams");
        as(ADMIN).body("{\"name\":\"nlp\",\"parent\":\"lab\",\"share\":0.25}").post("/api/v1/teams").then().statusCode(201)
                .body("parent", equalTo("lab"));
        as(ADMIN).get("/api/v1/teams").then().statusCode(200).body("name", hasItem("nlp"));
        as(ADMIN).body("{\"share\":0.3}").put("/api/v1/teams/nlp/budget").then().statusCode(200).body("share", equalTo(0.3f));
        as(ADMIN).get("/api/v1/teams/nlp").then().statusCode(200).body("share", equalTo(0.3f));
    }

    /**
     * Fair share owes GPU time to the tree's leaves only: a job of a team with sub-teams was accepted and then never owed
     * any, running only as fill, and a sub-team made under a team with work turned that work into fill.
     */
    @Test
    void aTeamWithSubTeamsTakesNoJobsAndATeamWithJobsGetsNoSubTeam() {
        Api.team("org-x", 0.5);
        String id = Api.submit(ADMIN, Api.job("org-work", "org-x", "TRAINING", 1));
        as(ADMIN).body("{\"name\":\"org-x-nlp\",\"parent\":\"org-x\",\"share\":0.5}").post("/api/v1/teams").then().statusCode(409)
                .body("error", containsString("'org-x' has waiting or running jobs"));
        as(ADMIN).delete("/api/v1/jobs/" + id).then().statusCode(200);
        as(ADMIN).body("{\"name\":\"org-x-nlp\",\"parent\":\"org-x\",\"share\":0.5}").post("/api/v1/teams").then().statusCode(201);
        as(ADMIN).body(Api.job("org-work", "org-x", "TRAINING", 1)).post("/api/v1/jobs").then().statusCode(422)
                .body("problems[0]", containsString("team 'org-x' has sub-teams [org-x-nlp]"));
        Api.submit(ADMIN, Api.job("nlp-work", "org-x-nlp", "TRAINING", 1));
    }

    @Test
    void badTeamsAreRefused() {
        as(ADMIN).body("{\"name\":\"dup\",\"share\":0.1}").post("/api/v1/teams");
        as(ADMIN).body("{\"name\":\"dup\",\"share\":0.1}").post("/api/v1/teams").then().statusCode(409).body("error", containsString("exists"));
        as(ADMIN).body("{\"name\":\"Bad Name\",\"share\":0.1}").post("/api/v1/teams").then().statusCode(400).body("problems[0]", containsString("name"));
        as(ADMIN).body("{\"name\":\"greedy\",\"share\":7}").post("/api/v1/teams").then().statusCode(400).body("problems[0]", containsString("share"));
        as(ADMIN).body("{\"name\":\"orphan\",\"parent\":\"nowhere\",\"share\":0.1}").post("/api/v1/teams").then().statusCode(422)
                .body("problems[0]", containsString("parent"));
        as(ADMIN).body("{\"share\":\"lots\"}").put("/api/v1/teams/dup/budget").then().statusCode(400).body("problems[0]", containsString("share"));
        as(ADMIN).body("{\"share\":0.2}").put("/api/v1/teams/ghost/budget").then().statusCode(404);
        as(ADMIN).get("/api/v1/teams/ghost").then().statusCode(404);
    }
}
