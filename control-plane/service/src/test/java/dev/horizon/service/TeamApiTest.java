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
        as(ADMIN).body("{\"name\":\"research\",\"share\":0.6}").post("/api/v1/teams");
        as(ADMIN).body("{\"name\":\"nlp\",\"parent\":\"research\",\"share\":0.25}").post("/api/v1/teams").then().statusCode(201)
                .body("parent", equalTo("research"));
        as(ADMIN).get("/api/v1/teams").then().statusCode(200).body("name", hasItem("nlp"));
        as(ADMIN).body("{\"share\":0.3}").put("/api/v1/teams/nlp/budget").then().statusCode(200).body("share", equalTo(0.3f));
        as(ADMIN).get("/api/v1/teams/nlp").then().statusCode(200).body("share", equalTo(0.3f));
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
