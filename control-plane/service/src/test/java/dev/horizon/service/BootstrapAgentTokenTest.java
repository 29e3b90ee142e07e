package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** The agent token a deployment hands its agents (horizon.bootstrap-agent-token, test profile) works from the first start. */
@QuarkusTest
class BootstrapAgentTokenTest {
    private static final String AGENT = "test-bootstrap-agent-token";

    @Test
    void theBootstrapAgentTokenActsAsAnAgentAndNothingMore() {
        Api.team("boot", 0.1);
        as(ADMIN).body("{\"name\":\"boot-chat\",\"team\":\"boot\",\"weightPerGpuHour\":20,\"swapCapGpus\":2}")
                .post("/api/v1/inference-services").then().statusCode(201);
        try {
            as(AGENT).body("{\"gpus\":[1,2]}").post("/api/v1/inference-services/boot-chat/demand").then().statusCode(200)
                    .body("observedSteps", equalTo(2));
            // known, but not an admin: refused for its role (403), not as an unknown token (401)
            as(AGENT).body("{\"name\":\"nope\",\"share\":0.1}").post("/api/v1/teams").then().statusCode(403);
            as("not-a-token").body("{\"gpus\":[1]}").post("/api/v1/inference-services/boot-chat/demand").then().statusCode(401);
        } finally {
            // the store is shared with the other tests of this profile: a service left there reserves GPUs in their plans
            as(ADMIN).delete("/api/v1/inference-services/boot-chat").then().statusCode(204);
        }
    }
}
