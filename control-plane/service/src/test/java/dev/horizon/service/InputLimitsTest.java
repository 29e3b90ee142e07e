package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.store.StoreException;
import io.quarkus.test.junit.QuarkusTest;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** What the issue found, each now a 4xx naming the field and its limit, never a 503 or 500. */
@QuarkusTest
class InputLimitsTest {
    private static String job(String name, String extra) {
        return "{\"name\":\"" + name + "\",\"team\":\"limits\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}" + extra + "}";
    }

    @Test
    void oversizedControlAndOverflowingFieldsAre400sNamingTheLimit() {
        Api.team("limits", 0.1);
        as(ADMIN).body(job("n".repeat(300), "")).post("/api/v1/jobs").then().statusCode(400)
                .body("problems[0]", containsString("name is 300 characters; the limit is 253"));
        as(ADMIN).body(job("ok", ",\"source\":{\"kind\":\"" + "K".repeat(10_000) + "\"}")).post("/api/v1/jobs").then().statusCode(400)
                .body("problems[0]", containsString("source.kind is 10000 characters; the limit is 63"));
        as(ADMIN).body(job("a\\u0000b", "")).post("/api/v1/jobs").then().statusCode(400)
                .body("problems[0]", containsString("name holds a control character (U+0000 at 1)"));
        as(ADMIN).body("{\"name\":\"big\",\"team\":\"limits\",\"class\":\"TRAINING\",\"replicas\":2147483647,\"perReplica\":{\"gpus\":2147483647}}")
                .post("/api/v1/jobs").then().statusCode(400).body("problems", org.hamcrest.Matchers.hasItem(containsString("replicas must be between 1")));
        as(ADMIN).body("{\"name\":" + "[".repeat(5000) + "]".repeat(5000) + "}").post("/api/v1/jobs").then().statusCode(400);
        as(ADMIN).body("{\"name\":\"a\",\"name\":\"b\"}").post("/api/v1/jobs").then().statusCode(400)
                .body("problems[0]", containsString("Duplicate field 'name'"));
        as(ADMIN).body("{\"name\":\"t\",\"share\":0.1,\"share\":0.2}").post("/api/v1/teams").then().statusCode(400)
                .body("problems[0]", containsString("Duplicate field 'share'"));
        as(ADMIN).body("{\"role\":\"admin\",\"label\":\"" + "l".repeat(300) + "\"}").post("/api/v1/tokens").then().statusCode(400)
                .body("problems[0]", containsString("label is 300 characters; the limit is 128"));
        as(ADMIN).get("/api/v1/jobs?limit=ten").then().statusCode(400).body("problems[0]", containsString("limit must be a whole number"));
    }

    @Test
    void theStoreRefusingAValueIsNotTheStoreBeingDown() {
        assertTrue(new StoreException(new SQLException("value too long", "22001")).refusedData());
        assertTrue(new StoreException(new SQLException("invalid byte sequence", "22021")).refusedData());
        assertFalse(new StoreException(new SQLException("connection refused", "08001")).refusedData());
        assertFalse(new StoreException(new SQLException("acquisition timeout")).refusedData());
        assertEquals(422, new dev.horizon.service.web.ErrorMappers().store(new StoreException(new SQLException("too long", "22001"))).getStatus());
        assertEquals(503, new dev.horizon.service.web.ErrorMappers().store(new StoreException(new SQLException("down", "08006"))).getStatus());
    }
}
