package dev.horizon.service.web;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Guessing tokens from one address slows down once it failed more than the free failures of a minute, over REST and
 * over the agents' gRPC alike (the failures of both count together: one source, one rule).
 */
@QuarkusTest
@TestProfile(HalfOpenConnectionsTest.ShortTimeouts.class)
class TokenGuessingTest {
    @TestHTTPResource("/")
    URL base;

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

    @Test
    void failedAgentTokensBeyondTheFreeOnesAreAnsweredLateOverGrpcToo() {
        ManagedChannel channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
        try {
            for (int i = 0; i < 2; i++) register(channel, "guess-grpc-" + i);
            long started = System.nanoTime();
            StatusRuntimeException late = register(channel, "guess-grpc-late");
            long lateMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(Status.Code.UNAUTHENTICATED, late.getStatus().getCode(), late.getStatus().toString());
            assertTrue(lateMillis >= 400, "the third failure in a minute waits the failure delay: " + lateMillis + " ms");
        } finally {
            channel.shutdownNow();
        }
    }

    private static StatusRuntimeException register(ManagedChannel channel, String token) {
        Metadata metadata = new Metadata();
        metadata.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return assertThrows(StatusRuntimeException.class, () -> MutinyAgentServiceGrpc.newMutinyStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata)).register(Inventory.newBuilder().setNodeName("guesser").build())
                .await().atMost(Duration.ofSeconds(10)));
    }
}
