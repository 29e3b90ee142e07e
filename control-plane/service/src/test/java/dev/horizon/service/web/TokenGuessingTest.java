package dev.horizon.service.web;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/** Guessing tokens from one address slows down once it failed more than the free failures of a minute. */
@QuarkusTest
@TestProfile(HalfOpenConnectionsTest.ShortTimeouts.class)
class TokenGuessingTest {
    @Test
    void failedTokensBeyondTheFreeOnesAreAnsweredLate() {
        for (int i = 0; i < 2; i++) as("guess-" + i).get("/api/v1/jobs").then().statusCode(401);
        long started = System.nanoTime();
        as("guess-late").get("/api/v1/jobs").then().statusCode(401);
        long lateMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(lateMillis >= 400, "the third failure in a minute waits the failure delay: " + lateMillis + " ms");
        // a valid token is not slowed
        started = System.nanoTime();
        as(ADMIN).get("/api/v1/jobs?limit=1").then().statusCode(200);
        assertTrue((System.nanoTime() - started) / 1_000_000 < 400, "a valid token answers at once");
    }
}
