package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@QuarkusTest
class NodeApiTest {
    @Test
    void declaredNodesAreListedWithTheirGpus() {
        as(ADMIN).get("/api/v1/nodes").then().statusCode(200).body("name", hasItems("node-0", "node-1"));
        as(ADMIN).get("/api/v1/nodes/node-0").then().statusCode(200).body("gpus", hasSize(8)).body("gpus[0].uuid", startsWith("GPU-"))
                .body("gpus[0].model", equalTo("H100-80GB")).body("gpus[0].migDevices", hasSize(0)).body("health", equalTo("HEALTHY"));
        as(ADMIN).get("/api/v1/nodes/node-9").then().statusCode(404);
    }
}
