package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import dev.horizon.agent.v1.RegisterReply;
import dev.horizon.agent.v1.TelemetryReport;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import java.net.URL;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Agent identity: an enrollment token enrolls a node once and gets its credential; the credential acts for that node only. */
@QuarkusTest
@TestProfile(AgentProfile.class)
class NodeIdentityTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TestHTTPResource("/")
    URL base;
    private ManagedChannel channel;

    @BeforeEach
    void connect() {
        channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
    }

    @AfterEach
    void disconnect() {
        channel.shutdownNow();
    }

    private MutinyAgentServiceStub stub(String token) {
        return AgentStub.agent(channel, "Bearer " + token);
    }

    private static Status.Code code(Runnable call) {
        try {
            call.run();
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    @Test
    void anEnrollmentTokenEnrollsANodeOnceAndOnlyRegisters() {
        String enrollment = Api.token("agent", null);
        RegisterReply first = stub(enrollment).register(AgentStub.host("id-a", 2)).await().atMost(WAIT);
        String credential = first.getNodeCredential();
        assertFalse(credential.isEmpty(), "enrolling answers the node's own credential");

        StatusRuntimeException again = assertThrows(StatusRuntimeException.class, () -> stub(enrollment).register(AgentStub.host("id-a", 1)).await().atMost(WAIT));
        assertEquals(Status.Code.PERMISSION_DENIED, again.getStatus().getCode());
        assertTrue(again.getStatus().getDescription().contains("re-enrolling it needs an admin"), again.getStatus().getDescription());
        as(ADMIN).get("/api/v1/nodes/id-a").then().body("gpus.size()", org.hamcrest.Matchers.equalTo(2));
        assertEquals(Status.Code.PERMISSION_DENIED, code(() -> stub(enrollment).telemetry(Multi.createFrom().item(TelemetryReport.newBuilder()
                .setNodeId("id-a").build())).await().atMost(WAIT)), "an enrollment token only registers");

        // the credential registers its own node again (an inventory change) and answers no second credential
        RegisterReply own = stub(credential).register(AgentStub.host("id-a", 2)).await().atMost(WAIT);
        assertTrue(own.getNodeCredential().isEmpty());
        assertEquals(Status.Code.PERMISSION_DENIED, code(() -> stub(credential).register(AgentStub.host("id-b", 2)).await().atMost(WAIT)));
        assertEquals(Status.Code.PERMISSION_DENIED, code(() -> stub(credential).telemetry(Multi.createFrom().item(TelemetryReport.newBuilder()
                .setNodeId("id-b").build())).await().atMost(WAIT)));
        as(ADMIN).get("/api/v1/nodes/id-b").then().statusCode(404);
        as(ADMIN).get("/api/v1/tokens").then().body("find { it.node == 'id-a' }.createdBy", org.hamcrest.Matchers.notNullValue());
    }

    @Test
    void revokingACredentialCutsItsOpenStreamAndAnAdminReEnrollsTheNode() {
        String credential = stub(Api.token("agent", null)).register(AgentStub.host("id-c", 1)).await().atMost(WAIT).getNodeCredential();
        AssertSubscriber<Command> stream = stub(credential).commands(AgentHello.newBuilder().setNodeId("id-c").build()).subscribe()
                .withSubscriber(AssertSubscriber.create(10));
        String id = as(ADMIN).get("/api/v1/tokens").then().extract().path("find { it.node == 'id-c' }.id");

        // an admin's credential for the node replaces the live one, whose stream ends at once
        String replacement = as(ADMIN).body("{\"role\":\"agent\",\"node\":\"id-c\"}").post("/api/v1/tokens").then().statusCode(201).extract().path("token");
        Throwable cut = stream.awaitFailure(WAIT).getFailure();
        assertEquals(Status.Code.UNAUTHENTICATED, Status.fromThrowable(cut).getCode(), cut.toString());
        as(ADMIN).get("/api/v1/tokens/" + id).then().body("revokedAt", org.hamcrest.Matchers.notNullValue());
        assertEquals(Status.Code.UNAUTHENTICATED, code(() -> stub(credential).register(AgentStub.host("id-c", 1)).await().atMost(WAIT)));
        assertEquals(Status.Code.OK, code(() -> stub(replacement).register(AgentStub.host("id-c", 1)).await().atMost(WAIT)));
    }
}
