package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import dev.horizon.service.security.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * The agent token a deployment hands its agents (horizon.bootstrap-agent-token, test profile) is an enrollment token from
 * the first start: it only registers nodes, and it is inserted once, so a revoked one stays revoked across restarts.
 */
@QuarkusTest
class BootstrapAgentTokenTest {
    private static final String AGENT = "test-bootstrap-agent-token";

    @Inject
    Tokens tokens;

    @Test
    void theBootstrapAgentTokenOnlyEnrollsAndIsInsertedOnce() {
        // known, but an enrollment token: refused for what it is (403), not as an unknown token (401)
        as(AGENT).body("{\"name\":\"nope\",\"share\":0.1}").post("/api/v1/teams").then().statusCode(403)
                .body("error", containsString("enrollment token"));
        as(AGENT).get("/api/v1/nodes").then().statusCode(403);
        as("not-a-token").get("/api/v1/nodes").then().statusCode(401);

        String id = as(ADMIN).get("/api/v1/tokens").then().statusCode(200).extract().path("find { it.label == 'bootstrap agent' }.id");
        as(ADMIN).get("/api/v1/tokens/" + id).then().body("role", equalTo("agent")).body("createdAt", notNullValue());
        as(ADMIN).delete("/api/v1/tokens/" + id).then().statusCode(200).body("revokedAt", notNullValue());
        as(AGENT).get("/api/v1/nodes").then().statusCode(401).body("error", containsString("token " + id + " was revoked at"));

        tokens.bootstrap(null); // what the next start does
        as(AGENT).get("/api/v1/nodes").then().statusCode(401);
        as(ADMIN).get("/api/v1/tokens").then().body("findAll { it.label == 'bootstrap agent' }.size()", equalTo(1));
    }
}
