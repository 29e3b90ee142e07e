package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Tokens have a lifecycle: listed without their secret, revoked (refused on the next request), expiring; admin changes are audited. */
@QuarkusTest
class TokenLifecycleTest {
    @Test
    void tokensAreListedWithoutTheirSecretAndARevokedOneIsRefusedOnItsNextRequest() {
        Api.team("life", 0.1);
        JsonPath created = as(ADMIN).body("{\"role\":\"submitter\",\"team\":\"life\",\"label\":\"ci\"}").post("/api/v1/tokens").then().statusCode(201)
                .body("role", equalTo("submitter")).body("team", equalTo("life")).body("createdAt", notNullValue()).extract().jsonPath();
        String token = created.getString("token");
        String id = created.getString("id");
        as(token).get("/api/v1/jobs").then().statusCode(200);

        List<Map<String, Object>> listed = as(ADMIN).get("/api/v1/tokens").then().statusCode(200).extract().jsonPath().getList("");
        Map<String, Object> mine = listed.stream().filter(t -> id.equals(t.get("id"))).findFirst().orElseThrow();
        assertTrue(!mine.containsKey("token") && mine.containsKey("lastUsedAt"), "id, role, team, label, times; never the secret: " + mine);
        assertTrue(listed.stream().noneMatch(t -> t.toString().contains(token)), "no secret anywhere in the list");

        as(token).get("/api/v1/tokens").then().statusCode(403);
        as(ADMIN).delete("/api/v1/tokens/" + id).then().statusCode(200).body("revokedAt", notNullValue()).body("$", not(hasKey("token")));
        as(token).get("/api/v1/jobs").then().statusCode(401).body("error", matchesPattern("token " + id + " was revoked at " + Api.ISO_SECOND + ".*"));
        as(ADMIN).delete("/api/v1/tokens/" + id).then().statusCode(409).body("error", matchesPattern(".*revoked already, at " + Api.ISO_SECOND));
        as(ADMIN).delete("/api/v1/tokens/nope").then().statusCode(404);

        JsonPath audit = as(ADMIN).get("/api/v1/audit?limit=20").then().statusCode(200).extract().jsonPath();
        assertTrue(audit.getList("detail").contains("revoked submitter token " + id + " for team life (ci)"), audit.prettify());
        assertTrue(audit.getList("detail").contains("created submitter token " + id + " for team life (ci)"), audit.prettify());
        as(token).get("/api/v1/audit").then().statusCode(401);
    }

    /**
     * A submitter token without a team said "needs an existing team (got null); create it", and a mistyped role came with
     * a second problem about the team it would have taken.
     */
    @Test
    void aSubmitterTokenWithoutATeamOrAnUnknownRoleIsOneClearProblem() {
        as(ADMIN).body("{\"role\":\"submitter\"}").post("/api/v1/tokens").then().statusCode(400)
                .body("problems", equalTo(List.of("team is required: a submitter token is bound to the team whose jobs it submits and cancels"
                        + " (./horizon token create --role submitter --team T)")));
        as(ADMIN).body("{\"role\":\"submiter\",\"team\":\"vision\"}").post("/api/v1/tokens").then().statusCode(400)
                .body("problems", equalTo(List.of("role must be one of admin, submitter, agent (got 'submiter')")));
    }

    @Test
    void aTokenExpiresAfterExpiresInSeconds() throws InterruptedException {
        String token = as(ADMIN).body("{\"role\":\"agent\",\"node\":\"expiring-node\",\"expiresInSeconds\":1}").post("/api/v1/tokens").then()
                .statusCode(201).body("expiresAt", notNullValue()).extract().path("token");
        long deadline = System.currentTimeMillis() + 10_000;
        int status;
        do {
            Thread.sleep(200);
            status = as(token).get("/api/v1/plan").statusCode();
        } while (status != 401 && System.currentTimeMillis() < deadline);
        as(token).get("/api/v1/plan").then().statusCode(401).body("error", matchesPattern(".*expired at " + Api.ISO_SECOND + ".*"));
        as(ADMIN).body("{\"role\":\"admin\",\"expiresInSeconds\":0}").post("/api/v1/tokens").then().statusCode(400)
                .body("problems[0]", containsString("expiresInSeconds must be between 1 and"));
    }

    @Test
    void theLastLiveAdminTokenCannotBeRevoked() {
        String second = as(ADMIN).body("{\"role\":\"admin\",\"label\":\"second\"}").post("/api/v1/tokens").then().statusCode(201).extract().path("token");
        String secondId = as(second).get("/api/v1/tokens").then().extract().path("find { it.label == 'second' }.id");
        String bootstrapId = as(second).get("/api/v1/tokens").then().extract().path("find { it.label == 'bootstrap admin' }.id");
        // with two live admins, one may go; the one left may not
        for (Map<String, Object> t : as(ADMIN).get("/api/v1/tokens").then().extract().jsonPath().<Map<String, Object>>getList("")) {
            if ("admin".equals(t.get("role")) && !t.containsKey("revokedAt") && !t.get("id").equals(secondId) && !t.get("id").equals(bootstrapId)) {
                as(ADMIN).delete("/api/v1/tokens/" + t.get("id")).then().statusCode(200);
            }
        }
        as(ADMIN).delete("/api/v1/tokens/" + secondId).then().statusCode(200);
        as(ADMIN).delete("/api/v1/tokens/" + bootstrapId).then().statusCode(409).body("error", containsString("last live admin token"));
    }
}
