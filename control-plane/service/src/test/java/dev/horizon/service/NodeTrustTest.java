package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.GpuTelemetry;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MemoryViolation;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import dev.horizon.agent.v1.TelemetryReport;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.planning.Planner;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Multi;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node acts only on its own GPUs, joins as kubelets do (bounded enrollment tokens, an admin's approval when the token
 * asks for it, a DNS-1123 name, GPUs no other node registered) and may retry its enrollment; over a real gRPC connection.
 * Each test's node names are its own.
 */
@QuarkusTest
@TestProfile(NodeTrustProfile.class)
class NodeTrustTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** 43 base64 characters: what the agent sends (32 random bytes). */
    private static final String NONCE = "n0nce-of-one-enrollment-attempt-0123456789a";

    @TestHTTPResource("/")
    URL base;
    @Inject
    Planner planner;
    @Inject
    NodeStore nodes;

    private ManagedChannel channel;

    @BeforeEach
    void connect() {
        channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
    }

    @AfterEach
    void disconnect() {
        channel.shutdownNow();
    }

    private MutinyAgentServiceStub agent(String token) {
        return AgentStub.agent(channel, "Bearer " + token);
    }

    private static Status refusal(Runnable call) {
        return assertThrows(StatusRuntimeException.class, call::run).getStatus();
    }

    private static TelemetryReport.Builder report(String node) {
        return TelemetryReport.newBuilder().setNodeId(node);
    }

    private void send(MutinyAgentServiceStub agent, TelemetryReport report) {
        agent.telemetry(Multi.createFrom().item(report)).await().atMost(WAIT);
    }

    private static String enrollmentToken(String options) {
        return as(ADMIN).body("{\"role\":\"agent\"" + options + "}").post("/api/v1/tokens").then().statusCode(201).extract().path("token");
    }

    @Test
    void aNodeReportsOnlyOnItsOwnGpusAndAnotherNodesGpuNeverDrainsIt() {
        MutinyAgentServiceStub a = AgentStub.enrolled(channel, AgentStub.host("own-a", 2));
        AgentStub.enrolled(channel, AgentStub.host("own-b", 2));
        send(a, report("own-a").addGpus(GpuTelemetry.newBuilder().setUuid("GPU-own-a-1").setUtilizationPercent(50)).build());

        Status reading = refusal(() -> send(a, report("own-a").addGpus(GpuTelemetry.newBuilder().setUuid("GPU-own-a-0").setUtilizationPercent(10))
                .addGpus(GpuTelemetry.newBuilder().setUuid("GPU-own-b-0").setUtilizationPercent(99)).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, reading.getCode());
        assertTrue(reading.getDescription().contains("gpus[1].uuid: GPU 'GPU-own-b-0' is not a GPU node own-a registered"), reading.getDescription());
        Status drain = refusal(() -> send(a, report("own-a").addEvents(HealthEvent.newBuilder().setGpuUuid("GPU-own-b-1")
                .setKind(HealthEvent.Kind.GPU_LOST)).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, drain.getCode());
        assertTrue(drain.getDescription().contains("events[0].gpu_uuid: GPU 'GPU-own-b-1'"), drain.getDescription());
        Status violation = refusal(() -> send(a, report("own-a").addViolations(MemoryViolation.newBuilder().setGpuUuid("GPU-own-b-0").setPid(1)
                .setAction(MemoryViolation.Action.KILLED)).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, violation.getCode());

        // nothing of a refused report was written: not even the reading of its own GPU before the foreign one
        as(ADMIN).get("/api/v1/nodes/own-a").then().body("health", equalTo("HEALTHY")).body("gpus[0].utilization", equalTo(null))
                .body("gpus[1].utilization", equalTo(0.5f));
        as(ADMIN).get("/api/v1/nodes/own-b").then().body("health", equalTo("HEALTHY")).body("gpus[0].utilization", equalTo(null))
                .body("gpus[1].health", equalTo("HEALTHY")).body("memoryViolations", org.hamcrest.Matchers.empty());
        // and the store itself never drains a node for a GPU it does not have
        assertFalse(nodes.healthEvent("own-a", "GPU-own-b-0", Node.UNHEALTHY, "Xid 79 on GPU GPU-own-b-0"));
        as(ADMIN).get("/api/v1/nodes/own-a").then().body("health", equalTo("HEALTHY"));
    }

    @Test
    void aNodeCredentialHoldsOnlyItsOwnGpusForAService() {
        String a = AgentStub.enrolledCredential(channel, AgentStub.host("held-a", 2));
        String b = AgentStub.enrolledCredential(channel, AgentStub.host("held-b", 2));
        Api.team("serving", 0.2);
        as(ADMIN).body("{\"name\":\"trusted-chat\",\"team\":\"serving\",\"weightPerGpuHour\":20,\"swapCapGpus\":2,\"servedBy\":[\"held-a\",\"held-b\"]}")
                .post("/api/v1/inference-services").then().statusCode(201);
        String held = "/api/v1/inference-services/trusted-chat/held";
        as(b).body("{\"gpuUuids\":[\"GPU-held-b-0\"]}").put(held).then().statusCode(200);

        as(a).body("{\"gpuUuids\":[\"GPU-held-a-0\",\"GPU-held-b-1\"]}").put(held).then().statusCode(403)
                .body("error", containsString("gpuUuids[1]: GPU 'GPU-held-b-1' is on node held-b; this credential is node held-a's"));
        as(a).body("{\"gpuUuids\":[\"GPU-nowhere\"]}").put(held).then().statusCode(403).body("error", containsString("is not on node held-a"));
        as(ADMIN).get("/api/v1/inference-services/trusted-chat").then().body("heldOn", equalTo(List.of("GPU-held-b-0")));

        // each node replaces only what the service holds on its own GPUs: node A's report keeps node B's GPU held, and
        // node A releasing all of its own leaves node B's alone
        as(a).body("{\"gpuUuids\":[\"GPU-held-a-1\"]}").put(held).then().statusCode(200).body("heldOn", equalTo(List.of("GPU-held-a-1", "GPU-held-b-0")));
        as(a).body("{\"gpuUuids\":[]}").put(held).then().statusCode(200).body("heldOn", equalTo(List.of("GPU-held-b-0")));
        as(ADMIN).body("{\"gpuUuids\":[]}").put(held).then().statusCode(200).body("heldOn", equalTo(List.of()));

        // a count of held GPUs is bounded by what the serving nodes registered (4)
        String demand = "/api/v1/inference-services/trusted-chat/demand";
        as(a).body("{\"gpus\":[1],\"heldGpus\":5}").post(demand).then().statusCode(403).body("error", containsString("heldGpus: 5"));
        as(a).body("{\"gpus\":[1],\"heldGpus\":4}").post(demand).then().statusCode(200).body("heldGpus", equalTo(4));
        as(ADMIN).delete("/api/v1/inference-services/trusted-chat").then().statusCode(204);
    }

    @Test
    void aGpuUuidRegisteredOnAnotherNodeIsRefused() {
        AgentStub.enrolled(channel, AgentStub.host("uuid-a", 2));
        Inventory copycat = AgentStub.host("uuid-b", 2).toBuilder().setGpus(1, AgentStub.h100("GPU-uuid-a-1", 1)).build();
        Status refused = refusal(() -> agent(Api.token("agent", null)).register(copycat).await().atMost(WAIT));
        assertEquals(Status.Code.ALREADY_EXISTS, refused.getCode());
        assertTrue(refused.getDescription().contains("gpus[1].uuid: GPU GPU-uuid-a-1 is registered on node uuid-a"), refused.getDescription());
        as(ADMIN).get("/api/v1/nodes/uuid-b").then().statusCode(404);
        // a refused enrollment takes no use of its token and leaves no mark: the name enrolls later, schedulable at once
        String once = enrollmentToken(",\"maxUses\":1,\"requireApproval\":true");
        assertEquals(Status.Code.ALREADY_EXISTS, refusal(() -> agent(once).register(copycat).await().atMost(WAIT)).getCode());
        agent(once).register(AgentStub.host("uuid-c", 1)).await().atMost(WAIT);
        agent(Api.token("agent", null)).register(AgentStub.host("uuid-b", 2)).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/uuid-b").then().body("pendingApproval", equalTo(false));
        as(ADMIN).get("/api/v1/nodes/uuid-a").then().body("gpus.uuid", hasItem("GPU-uuid-a-1"));
    }

    @Test
    void whatANodeRegistersLaterIsBoundedByWhatItEnrolledWith() {
        String enrollment = Api.token("agent", null);
        Inventory enrolled = AgentStub.host("bound-a", 2).toBuilder().setEnrollmentNonce(NONCE).build();
        String credential = agent(enrollment).register(enrolled).await().atMost(WAIT).getNodeCredential();
        Status more = refusal(() -> agent(credential).register(AgentStub.host("bound-a", 3)).await().atMost(WAIT));
        assertEquals(Status.Code.PERMISSION_DENIED, more.getCode());
        assertTrue(more.getDescription().contains("gpus: node bound-a enrolled with 2 GPUs [H100-80GB]"), more.getDescription());
        Inventory otherModel = AgentStub.host("bound-a", 2).toBuilder().setGpus(1, AgentStub.h100("GPU-bound-a-1", 1).toBuilder().setModel("B200-180GB"))
                .build();
        assertEquals(Status.Code.PERMISSION_DENIED, refusal(() -> agent(credential).register(otherModel).await().atMost(WAIT)).getCode());
        Inventory retriedBigger = AgentStub.host("bound-a", 8).toBuilder().setEnrollmentNonce(NONCE).build();
        assertEquals(Status.Code.PERMISSION_DENIED, refusal(() -> agent(enrollment).register(retriedBigger).await().atMost(WAIT)).getCode(),
                "a retried enrollment is bounded too");
        as(ADMIN).get("/api/v1/nodes/bound-a").then().body("gpus.size()", equalTo(2));

        // fewer (a GPU fell off the bus) and back is fine; an admin's re-enrollment sets a new bound
        agent(credential).register(AgentStub.host("bound-a", 1)).await().atMost(WAIT);
        agent(credential).register(AgentStub.host("bound-a", 2)).await().atMost(WAIT);
        String reenrolled = as(ADMIN).body("{\"role\":\"agent\",\"node\":\"bound-a\"}").post("/api/v1/tokens").then().statusCode(201).extract().path("token");
        agent(reenrolled).register(AgentStub.host("bound-a", 4)).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/bound-a").then().body("gpus.size()", equalTo(4));
    }

    @Test
    void nodeNamesAreDns1123Subdomains() {
        String enrollment = Api.token("agent", null);
        for (String name : new String[] {"../../etc", "%_", "node-1[0-1]+zz", "Upper-Case", "-dash", "a..b", "n".repeat(254)}) {
            Status refused = refusal(() -> agent(enrollment).register(AgentStub.host(name, 1)).await().atMost(WAIT));
            assertEquals(Status.Code.INVALID_ARGUMENT, refused.getCode(), name);
            assertTrue(refused.getDescription().contains("node_name must be a DNS-1123 subdomain"), refused.getDescription());
        }
        assertNotEquals("", agent(enrollment).register(AgentStub.host("rack-7.gpu-1", 1)).await().atMost(WAIT).getNodeCredential());
        as(ADMIN).body("{\"role\":\"agent\",\"node\":\"../../etc\"}").post("/api/v1/tokens").then().statusCode(400)
                .body("problems[0]", containsString("node must be a DNS-1123 subdomain"));
        Api.team("names", 0.1);
        as(ADMIN).body("{\"name\":\"names-svc\",\"team\":\"names\",\"weightPerGpuHour\":1,\"swapCapGpus\":1,\"servedBy\":[\"node-1[0-1]+zz\"]}")
                .post("/api/v1/inference-services").then().statusCode(400).body("problems[0]", containsString("servedBy[0] must be a DNS-1123"));
    }

    @Test
    void anEnrollmentTokenEnrollsAtMostItsMaxUses() {
        String once = enrollmentToken(",\"maxUses\":1,\"label\":\"one node\"");
        agent(once).register(AgentStub.host("uses-a", 1)).await().atMost(WAIT);
        Status spent = refusal(() -> agent(once).register(AgentStub.host("uses-b", 1)).await().atMost(WAIT));
        assertEquals(Status.Code.PERMISSION_DENIED, spent.getCode());
        assertTrue(spent.getDescription().contains("has enrolled the 1 node it may (maxUses)"), spent.getDescription());
        as(ADMIN).get("/api/v1/nodes/uses-b").then().statusCode(404);
        as(ADMIN).get("/api/v1/tokens").then().body("find { it.label == 'one node' }.uses", equalTo(1))
                .body("find { it.label == 'one node' }.maxUses", equalTo(1));

        as(ADMIN).body("{\"role\":\"agent\",\"maxUses\":0}").post("/api/v1/tokens").then().statusCode(400).body("problems[0]", containsString("maxUses must be"));
        as(ADMIN).body("{\"role\":\"agent\",\"node\":\"uses-c\",\"maxUses\":2}").post("/api/v1/tokens").then().statusCode(400)
                .body("problems[0]", containsString("maxUses: only enrollment tokens"));
        as(ADMIN).body("{\"role\":\"admin\",\"requireApproval\":true}").post("/api/v1/tokens").then().statusCode(400)
                .body("problems[0]", containsString("requireApproval: only enrollment tokens"));
    }

    @Test
    void aNodeWaitingForApprovalIsNeverPlannedOnUntilAnAdminApprovesIt() {
        // one approved A100 node, busy; another that waits for approval, idle
        agent(Api.token("agent", null)).register(a100("approved-a100")).await().atMost(WAIT);
        agent(enrollmentToken(",\"requireApproval\":true")).register(a100("approve-me")).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/approve-me").then().body("pendingApproval", equalTo(true));
        as(ADMIN).get("/api/v1/nodes/approved-a100").then().body("pendingApproval", equalTo(false));
        Api.team("approvals", 0.2);
        String wantsAnA100 = "{\"name\":\"wants-an-a100\",\"team\":\"approvals\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1,"
                + "\"gpuTypes\":[\"A100-80GB\"]},\"durationEstimateSeconds\":3600}";
        String busy = Api.submit(ADMIN, wantsAnA100);
        planner.planNow();
        as(ADMIN).get("/api/v1/jobs/" + busy).then().body("state", equalTo("RUNNING")).body("placement", equalTo("approved-a100[0-0]"));
        String job = Api.submit(ADMIN, wantsAnA100);
        planner.planNow();
        as(ADMIN).get("/api/v1/plan").then().body("nodes", not(hasItem("approve-me")));
        as(ADMIN).get("/api/v1/jobs/" + job).then().body("state", equalTo("PENDING"));

        as(Api.token("submitter", "approvals")).post("/api/v1/nodes/approve-me/approval").then().statusCode(403);
        as(ADMIN).post("/api/v1/nodes/approve-me/approval").then().statusCode(200).body("pendingApproval", equalTo(false));
        as(ADMIN).post("/api/v1/nodes/approve-me/approval").then().statusCode(409).body("error", containsString("not waiting for approval"));
        as(ADMIN).post("/api/v1/nodes/nowhere/approval").then().statusCode(404);
        planner.planNow();
        as(ADMIN).get("/api/v1/jobs/" + job).then().body("state", equalTo("RUNNING")).body("placement", equalTo("approve-me[0-0]"));
        as(ADMIN).get("/api/v1/audit").then().body("detail", hasItem(containsString("approved node approve-me")));
        as(ADMIN).delete("/api/v1/jobs/" + job).then().statusCode(200);
        as(ADMIN).delete("/api/v1/jobs/" + busy).then().statusCode(200);
    }

    /**
     * Only the control plane's log said a node waits for approval; its agent reported UP. Register's reply says so, on
     * enrollment and on every registration after it until an admin approves the node.
     */
    @Test
    void registerTellsTheAgentItsNodeAwaitsApprovalUntilAnAdminApprovesIt() {
        var enrolled = agent(enrollmentToken(",\"requireApproval\":true")).register(AgentStub.host("awaits-a", 1)).await().atMost(WAIT);
        assertTrue(enrolled.getAwaitingApproval(), "enrolled by a token that requires approval");
        MutinyAgentServiceStub node = agent(enrolled.getNodeCredential());
        assertTrue(node.register(AgentStub.host("awaits-a", 1)).await().atMost(WAIT).getAwaitingApproval(), "registered again, still waiting");
        as(ADMIN).post("/api/v1/nodes/awaits-a/approval").then().statusCode(200);
        assertFalse(node.register(AgentStub.host("awaits-a", 1)).await().atMost(WAIT).getAwaitingApproval(), "approved");
        assertFalse(agent(enrollmentToken("")).register(AgentStub.host("awaits-b", 1)).await().atMost(WAIT).getAwaitingApproval(),
                "a token that requires no approval");
    }

    /** The plan leaves a node awaiting approval out: a job only it can hold is told so, and the command that brings it in. */
    @Test
    void aJobOnlyANodeAwaitingApprovalCanHoldNamesItAndTheCommand() {
        agent(Api.token("agent", null)).register(AgentStub.host("approval-up", 1)).await().atMost(WAIT);
        Inventory b200 = Inventory.newBuilder().setNodeName("approval-b200")
                .addGpus(AgentStub.h100("GPU-approval-b200-0", 0).toBuilder().setModel("B200-180GB")).build();
        agent(enrollmentToken(",\"requireApproval\":true")).register(b200).await().atMost(WAIT);
        Api.team("approval-wait", 0.2);
        String id = Api.submit(ADMIN, "{\"name\":\"needs-a-b200\",\"team\":\"approval-wait\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":1,"
                + "\"gpuTypes\":[\"B200-180GB\"]}}");
        planner.planNow();
        as(ADMIN).get("/api/v1/jobs/" + id + "/explanation").then().body("state", equalTo("PENDING"))
                .body("reason", equalTo("no node that takes work now can hold it while approval-b200 (awaiting an admin's approval) is out; it waits"
                        + " until an admin approves it (./horizon node approve approval-b200)"));
        as(ADMIN).post("/api/v1/nodes/approval-b200/approval").then().statusCode(200);
        planner.planNow();
        as(ADMIN).get("/api/v1/jobs/" + id).then().body("state", equalTo("RUNNING")).body("placement", equalTo("approval-b200[0-0]"));
        as(ADMIN).delete("/api/v1/jobs/" + id).then().statusCode(200);
    }

    private static Inventory a100(String node) {
        return Inventory.newBuilder().setNodeName(node).addGpus(AgentStub.h100("GPU-" + node + "-0", 0).toBuilder().setModel("A100-80GB")).build();
    }

    @Test
    void aRetriedEnrollmentWithItsNonceGetsTheSameCredential() {
        String once = enrollmentToken(",\"maxUses\":1,\"requireApproval\":true");
        Inventory host = AgentStub.host("retry-a", 1).toBuilder().setEnrollmentNonce(NONCE).build();
        String first = agent(once).register(host).await().atMost(WAIT).getNodeCredential();
        as(ADMIN).post("/api/v1/nodes/retry-a/approval").then().statusCode(200);
        // the first reply was lost: the retry gets the same credential, uses no second enrollment and keeps the approval
        assertEquals(first, agent(once).register(host).await().atMost(WAIT).getNodeCredential());
        as(ADMIN).get("/api/v1/nodes/retry-a").then().body("pendingApproval", equalTo(false));
        agent(first).register(AgentStub.host("retry-a", 1)).await().atMost(WAIT);

        Status other = refusal(() -> agent(once).register(host.toBuilder().setEnrollmentNonce(NONCE.replace('0', '1')).build()).await().atMost(WAIT));
        assertEquals(Status.Code.PERMISSION_DENIED, other.getCode(), "another enrollment of the same node");
        assertTrue(other.getDescription().contains("has a live credential"), other.getDescription());
        Status weak = refusal(() -> agent(Api.token("agent", null)).register(AgentStub.host("retry-b", 1).toBuilder().setEnrollmentNonce("1").build())
                .await().atMost(WAIT));
        assertEquals(Status.Code.INVALID_ARGUMENT, weak.getCode());
        assertTrue(weak.getDescription().contains("enrollment_nonce: 22 to 128"), weak.getDescription());

        // once an admin revoked the credential, the same retry is refused
        String id = as(ADMIN).get("/api/v1/tokens").then().extract().path("find { it.node == 'retry-a' }.id");
        as(ADMIN).delete("/api/v1/tokens/" + id).then().statusCode(200);
        String fresh = enrollmentToken("");
        Status revoked = refusal(() -> agent(fresh).register(host).await().atMost(WAIT));
        assertTrue(revoked.getDescription().contains("revoked"), revoked.getDescription());
    }
}
