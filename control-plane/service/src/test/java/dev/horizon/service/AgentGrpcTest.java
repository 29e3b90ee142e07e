package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.GpuProcess;
import dev.horizon.agent.v1.GpuTelemetry;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MemoryViolation;
import dev.horizon.agent.v1.MigDevice;
import dev.horizon.agent.v1.MigMode;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import dev.horizon.agent.v1.RegisterReply;
import dev.horizon.agent.v1.SetSharing;
import dev.horizon.agent.v1.TelemetryReport;
import dev.horizon.service.planning.Planner;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.helpers.test.AssertSubscriber;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** The agent protocol over a real gRPC connection to the HTTP port, as an agent would use it. */
@QuarkusTest
@TestProfile(AgentProfile.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentGrpcTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TestHTTPResource("/")
    URL base;
    @TestHTTPResource(value = "/", management = true)
    URL management;
    @Inject
    Planner planner;

    private ManagedChannel channel;

    @BeforeEach
    void connect() {
        channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
    }

    @AfterEach
    void disconnect() {
        channel.shutdownNow();
    }

    private MutinyAgentServiceStub agent(String bearer) {
        return AgentStub.agent(channel, bearer);
    }

    private MutinyAgentServiceStub agent() {
        return agent("Bearer " + Api.token("agent", null));
    }

    private MutinyAgentServiceStub enrolled(Inventory inventory) {
        return AgentStub.enrolled(channel, inventory);
    }

    private static GpuInventory h100(String uuid, int index) {
        return AgentStub.h100(uuid, index);
    }

    private static Inventory host(String name, int gpus) {
        return AgentStub.host(name, gpus);
    }

    private static String state(String job) {
        return as(ADMIN).get("/api/v1/jobs/" + job).then().extract().path("state");
    }

    @Test
    @Order(1)
    void declaredNodesStandInUntilAnAgentRegistersItsGpus() {
        planner.planNow();
        as(ADMIN).get("/api/v1/plan").then().body("nodes", equalTo(List.of("node-0", "node-1")));

        Inventory inventory = Inventory.newBuilder().setNodeName("host-a").addGpus(h100("GPU-host-a-0", 0))
                .addGpus(h100("GPU-host-a-1", 1).toBuilder().setMigMode(MigMode.MIG_ENABLED)
                        .addMigDevices(MigDevice.newBuilder().setUuid("MIG-a1-0").setProfile("3g.40gb").setPlacementStart(0).setPlacementSize(4))
                        .addMigDevices(MigDevice.newBuilder().setUuid("MIG-a1-1").setProfile("3g.40gb").setPlacementStart(4).setPlacementSize(4)))
                .build();
        RegisterReply reply = agent().register(inventory).await().atMost(WAIT);
        assertEquals("host-a", reply.getNodeId());
        assertEquals(900, reply.getStepSeconds(), "the planner's step period from horizon.planner.step-seconds");

        as(ADMIN).get("/api/v1/nodes").then().body("name", hasItem("host-a"));
        as(ADMIN).get("/api/v1/nodes/host-a").then().statusCode(200).body("source", equalTo("agent")).body("health", equalTo("HEALTHY"))
                .body("gpus.uuid", equalTo(List.of("GPU-host-a-0", "GPU-host-a-1"))).body("gpus[0].model", equalTo("H100-80GB"))
                .body("gpus[1].migMode", equalTo("ENABLED")).body("gpus[1].migDevices.profile", equalTo(List.of("3g.40gb", "3g.40gb")))
                .body("gpus[1].migDevices[1].uuid", equalTo("MIG-a1-1")).body("gpus[1].migDevices[1].placementStart", equalTo(4));

        planner.planNow();
        as(ADMIN).get("/api/v1/plan").then().body("nodes", equalTo(List.of("host-a"))).body("totalGpus", equalTo(2));
        Api.team("infra", 0.2);
        String job = Api.submit(ADMIN, Api.job("on-agent-node", "infra", "DEBUG", 1));
        planner.planNow();
        as(ADMIN).get("/api/v1/jobs/" + job).then().body("state", equalTo("RUNNING")).body("placement", containsString("host-a["));
    }

    @Test
    void callsWithoutAnAgentTokenAreRefused() {
        Inventory inventory = host("host-x", 1);
        StatusRuntimeException missing = assertThrows(StatusRuntimeException.class, () -> agent(null).register(inventory).await().atMost(WAIT));
        assertEquals(Status.Code.UNAUTHENTICATED, missing.getStatus().getCode());
        assertTrue(missing.getStatus().getDescription().contains("missing bearer token"), missing.getStatus().getDescription());

        StatusRuntimeException wrong = assertThrows(StatusRuntimeException.class,
                () -> agent("Bearer not-a-token").register(inventory).await().atMost(WAIT));
        assertEquals(Status.Code.UNAUTHENTICATED, wrong.getStatus().getCode());
        assertTrue(wrong.getStatus().getDescription().contains("unknown token"), wrong.getStatus().getDescription());

        StatusRuntimeException admin = assertThrows(StatusRuntimeException.class,
                () -> agent("Bearer " + ADMIN).register(inventory).await().atMost(WAIT));
        assertEquals(Status.Code.PERMISSION_DENIED, admin.getStatus().getCode());
        as(ADMIN).get("/api/v1/nodes/host-x").then().statusCode(404);
    }

    @Test
    void aBadInventoryOrAnUnregisteredNodeIsRefusedWithTheReason() {
        MutinyAgentServiceStub agent = agent();
        StatusRuntimeException empty = assertThrows(StatusRuntimeException.class,
                () -> agent.register(Inventory.newBuilder().setNodeName("host-empty").build()).await().atMost(WAIT));
        assertEquals(Status.Code.INVALID_ARGUMENT, empty.getStatus().getCode());
        assertTrue(empty.getStatus().getDescription().contains("gpus: a node has 1 to 64 GPUs"), empty.getStatus().getDescription());

        // a credential an admin made for a node whose agent has not registered yet
        String never = as(ADMIN).body("{\"role\":\"agent\",\"node\":\"host-never\"}").post("/api/v1/tokens").then().statusCode(201)
                .extract().path("token");
        StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class, () -> agent("Bearer " + never)
                .commands(AgentHello.newBuilder().setNodeId("host-never").build()).collect().asList().await().atMost(WAIT));
        assertEquals(Status.Code.NOT_FOUND, unknown.getStatus().getCode());
        assertTrue(unknown.getStatus().getDescription().contains("call Register"), unknown.getStatus().getDescription());
    }

    @Test
    void telemetryIsRecordedAndALostGpuDrainsItsNodeUntilItRegistersHealthy() {
        MutinyAgentServiceStub agent = enrolled(host("host-b", 4));
        TelemetryReport busy = TelemetryReport.newBuilder().setNodeId("host-b").addGpus(GpuTelemetry.newBuilder().setUuid("GPU-host-b-0")
                .setUtilizationPercent(87.5).setMemoryUsedMib(40_000)
                .addProcesses(GpuProcess.newBuilder().setPid(4242).setUsedMemoryMib(40_000).setName("train.py"))).build();
        TelemetryReport idle = TelemetryReport.newBuilder().setNodeId("host-b").addGpus(GpuTelemetry.newBuilder().setUuid("GPU-host-b-1")
                .setUtilizationPercent(0).setMemoryUsedMib(0)).build();
        assertEquals(2, agent.telemetry(Multi.createFrom().items(busy, idle)).await().atMost(WAIT).getReports());
        as(ADMIN).get("/api/v1/nodes/host-b").then().body("health", equalTo("HEALTHY")).body("gpus[0].utilization", equalTo(0.875f))
                .body("gpus[0].memoryUsedMiB", equalTo(40_000)).body("gpus[0].processes[0].pid", equalTo(4242))
                .body("gpus[0].processes[0].name", equalTo("train.py")).body("gpus[1].utilization", equalTo(0.0f));

        TelemetryReport harmlessXid = TelemetryReport.newBuilder().setNodeId("host-b").addEvents(HealthEvent.newBuilder()
                .setGpuUuid("GPU-host-b-0").setKind(HealthEvent.Kind.XID).setXid(13).setDetail("graphics engine exception")).build();
        agent.telemetry(Multi.createFrom().item(harmlessXid)).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/host-b").then().body("health", equalTo("HEALTHY"))
                .body("gpus[0].lastEvent", equalTo("Xid 13 on GPU GPU-host-b-0: graphics engine exception"));

        TelemetryReport lost = TelemetryReport.newBuilder().setNodeId("host-b").addEvents(HealthEvent.newBuilder()
                .setGpuUuid("GPU-host-b-3").setKind(HealthEvent.Kind.GPU_LOST).setDetail("NVML_ERROR_GPU_IS_LOST")).build();
        agent.telemetry(Multi.createFrom().item(lost)).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/host-b").then().body("health", equalTo("UNHEALTHY"))
                .body("healthReason", equalTo("gpu lost on GPU GPU-host-b-3: NVML_ERROR_GPU_IS_LOST")).body("gpus[3].health", equalTo("LOST"));

        // only host-b has 4 GPUs, and it is drained: the job waits
        Api.team("vision", 0.2);
        String wide = Api.submit(ADMIN, Api.job("needs-host-b", "vision", "TRAINING", 4));
        planner.planNow();
        assertEquals("PENDING", state(wide), "the planner gives a drained node no new work");

        agent.register(host("host-b", 4)).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/host-b").then().body("health", equalTo("HEALTHY"));
        planner.planNow();
        as(ADMIN).get("/api/v1/jobs/" + wide).then().body("state", equalTo("RUNNING")).body("placement", equalTo("host-b[0-3]"));
        // what its GPUs hold is its measured peak, which only rises: the alternatives offer a slice where it fits
        for (long used : new long[] {30_000, 12_000}) {
            agent.telemetry(Multi.createFrom().item(TelemetryReport.newBuilder().setNodeId("host-b").addGpus(GpuTelemetry.newBuilder()
                    .setUuid("GPU-host-b-2").setUtilizationPercent(90).setMemoryUsedMib(used)).build())).await().atMost(WAIT);
        }
        as(ADMIN).get("/api/v1/jobs/" + wide).then().body("peakGpuMemoryMiB", equalTo(30_000));
        as(ADMIN).delete("/api/v1/jobs/" + wide).then().statusCode(200);
    }

    @Test
    void memoryViolationsAreRecordedShownOnTheNodeAndCounted() {
        MutinyAgentServiceStub agent = enrolled(host("host-v", 2));
        MemoryViolation hog = MemoryViolation.newBuilder().setPid(777).setGpuUuid("GPU-host-v-1").setUsedMib(30_000).setAllowedMib(20_389)
                .setAction(MemoryViolation.Action.KILLED).setProcessName("hog.py").setShare("TIME_SLICING x4").setObservedAtMs(1_234_567).build();
        agent.telemetry(Multi.createFrom().item(TelemetryReport.newBuilder().setNodeId("host-v").addViolations(hog).build())).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/host-v").then().body("memoryViolations", hasSize(1)).body("memoryViolations[0].pid", equalTo(777))
                .body("memoryViolations[0].gpuUuid", equalTo("GPU-host-v-1")).body("memoryViolations[0].usedMiB", equalTo(30_000))
                .body("memoryViolations[0].allowedMiB", equalTo(20_389)).body("memoryViolations[0].action", equalTo("KILLED"))
                .body("memoryViolations[0].processName", equalTo("hog.py")).body("memoryViolations[0].share", equalTo("TIME_SLICING x4"))
                .body("memoryViolations[0].observedAt", equalTo("1970-01-01T00:20:34Z"));
        given().get(management + "metrics").then().body(containsString("horizon_memory_violations_total{action=\"KILLED\",gpu=\"GPU-host-v-1\",node=\"host-v\"} 1.0"));

        MemoryViolation elsewhere = hog.toBuilder().setGpuUuid("GPU-not-here").build();
        StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class, () -> agent.telemetry(Multi.createFrom()
                .item(TelemetryReport.newBuilder().setNodeId("host-v").addViolations(elsewhere).build())).await().atMost(WAIT));
        assertEquals(Status.Code.PERMISSION_DENIED, unknown.getStatus().getCode());
        assertTrue(unknown.getStatus().getDescription().contains("violations[0].gpu_uuid: GPU 'GPU-not-here' is not a GPU node host-v registered"),
                unknown.getStatus().getDescription());
    }

    @Test
    void queuedCommandsAreStreamedToTheAgentAndItsResultsShowOnTheNode() {
        MutinyAgentServiceStub agent = enrolled(host("host-c", 1));
        String mig = "{\"applyMigLayout\":{\"gpuUuid\":\"GPU-host-c-0\",\"slots\":[{\"profile\":\"3g.40gb\",\"start\":0},"
                + "{\"profile\":\"3g.40gb\",\"start\":4}]}}";
        String queued = as(ADMIN).body(mig).post("/api/v1/nodes/host-c/commands").then().statusCode(201).body("state", equalTo("QUEUED"))
                .extract().path("id");

        AgentHello hello = AgentHello.newBuilder().setNodeId("host-c").build();
        AssertSubscriber<Command> stream = agent.commands(hello).subscribe().withSubscriber(AssertSubscriber.create(10));
        Command first = stream.awaitItems(1, WAIT).getItems().get(0);
        assertEquals(queued, first.getId(), "a command queued while the agent was away is streamed when it connects");
        assertEquals(List.of("3g.40gb", "3g.40gb"), first.getApplyMigLayout().getSlotsList().stream().map(s -> s.getProfile()).toList());
        assertEquals(4, first.getApplyMigLayout().getSlots(1).getStart());

        String sharing = as(ADMIN).body("{\"setSharing\":{\"gpuUuid\":\"GPU-host-c-0\",\"mode\":\"TIME_SLICING\",\"replicas\":4}}")
                .post("/api/v1/nodes/host-c/commands").then().statusCode(201).extract().path("id");
        Command second = stream.awaitItems(2, WAIT).getItems().get(1);
        assertEquals(sharing, second.getId(), "a command queued while the agent is connected is streamed at once");
        assertEquals(SetSharing.Mode.TIME_SLICING, second.getSetSharing().getMode());
        assertEquals(4, second.getSetSharing().getReplicas());
        as(ADMIN).get("/api/v1/nodes/host-c").then().body("commands.state", equalTo(List.of("SENT", "SENT")));

        // an agent that reconnects before answering gets its unanswered commands again
        stream.cancel();
        AssertSubscriber<Command> again = agent.commands(hello).subscribe().withSubscriber(AssertSubscriber.create(10));
        assertEquals(List.of(queued, sharing), again.awaitItems(2, WAIT).getItems().stream().map(Command::getId).toList());

        assertEquals("SUCCEEDED", agent.reportResult(CommandResult.newBuilder().setNodeId("host-c").setCommandId(queued).setSuccess(true).build())
                .await().atMost(WAIT).getState());
        String error = "NVML_ERROR_NO_PERMISSION: setting the compute mode needs root";
        assertEquals("FAILED", agent.reportResult(CommandResult.newBuilder().setNodeId("host-c").setCommandId(sharing).setError(error).build())
                .await().atMost(WAIT).getState());
        as(ADMIN).get("/api/v1/nodes/host-c").then().body("commands", hasSize(2)).body("commands.find { it.id == '" + queued + "' }.state",
                equalTo("SUCCEEDED")).body("commands.find { it.id == '" + sharing + "' }.state", equalTo("FAILED"))
                .body("commands.find { it.id == '" + sharing + "' }.error", equalTo(error))
                .body("commands.find { it.id == '" + queued + "' }.action.applyMigLayout.slots[1].profile", equalTo("3g.40gb"));

        StatusRuntimeException unknown = assertThrows(StatusRuntimeException.class, () -> agent.reportResult(CommandResult.newBuilder()
                .setNodeId("host-c").setCommandId("no-such-command").setSuccess(true).build()).await().atMost(WAIT));
        assertEquals(Status.Code.NOT_FOUND, unknown.getStatus().getCode());
        again.cancel();
    }

    @Test
    void commandsThatCannotRunAreRefusedNamingTheField() {
        MutinyAgentServiceStub agent = enrolled(host("host-d", 1));
        as(ADMIN).body("{\"applyMigLayout\":{\"gpuUuid\":\"GPU-host-d-0\",\"slots\":[{\"profile\":\"9g.99gb\",\"start\":0}]}}")
                .post("/api/v1/nodes/host-d/commands").then().statusCode(400)
                .body("problems[0]", containsString("applyMigLayout.slots[0].profile: unknown MIG profile '9g.99gb' for H100-80GB"));
        as(ADMIN).body("{\"applyMigLayout\":{\"gpuUuid\":\"GPU-host-d-0\",\"slots\":[{\"profile\":\"4g.40gb\",\"start\":0},"
                + "{\"profile\":\"3g.40gb\",\"start\":0}]}}").post("/api/v1/nodes/host-d/commands").then().statusCode(400)
                .body("problems[0]", containsString("applyMigLayout.slots: 3g.40gb at slot 0 overlaps 4g.40gb at slot 0"));
        as(ADMIN).body("{\"applyMigLayout\":{\"gpuUuid\":\"GPU-elsewhere\",\"slots\":[]}}").post("/api/v1/nodes/host-d/commands").then()
                .statusCode(400).body("problems[0]", containsString("applyMigLayout.gpuUuid: node host-d has no GPU 'GPU-elsewhere'"));
        as(ADMIN).body("{\"setSharing\":{\"gpuUuid\":\"GPU-host-d-0\",\"mode\":\"MPS\",\"replicas\":1}}").post("/api/v1/nodes/host-d/commands")
                .then().statusCode(400).body("problems[0]", containsString("setSharing.replicas"));
        as(ADMIN).body("{\"drain\":{\"reason\":\"x\"},\"setSharing\":{}}").post("/api/v1/nodes/host-d/commands").then().statusCode(400)
                .body("problems[0]", containsString("exactly one of applyMigLayout, setSharing or drain"));
        as(ADMIN).body("{\"drain\":{\"reason\":\"maintenance\"}}").post("/api/v1/nodes/node-0/commands").then().statusCode(409)
                .body("error", containsString("declared in horizon.nodes"));
        String enrollment = Api.token("agent", null);
        as(enrollment).body("{\"drain\":{\"reason\":\"maintenance\"}}").post("/api/v1/nodes/host-d/commands").then().statusCode(403);
        agent.register(host("host-d", 1)).await().atMost(WAIT);
        as(ADMIN).get("/api/v1/nodes/host-d").then().body("commands", hasSize(0));
    }

    @Test
    void aDrainCommandDrainsTheNodeSoNoNewWorkKeepsItsAgentWaiting() {
        enrolled(host("host-drain", 1));
        as(ADMIN).body("{\"drain\":{\"reason\":\"maintenance\"}}").post("/api/v1/nodes/host-drain/commands").then().statusCode(201);
        as(ADMIN).get("/api/v1/nodes/host-drain").then().body("drainReason", equalTo("maintenance"))
                .body("commands[0].action.drain.reason", equalTo("maintenance"));
        as(ADMIN).delete("/api/v1/nodes/host-drain/drain").then().statusCode(200).body("drainReason", nullValue());
    }

    // agent identity: an enrollment token enrolls a node once and gets its credential, which acts for that node only

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
        RegisterReply first = agent("Bearer " + enrollment).register(AgentStub.host("id-a", 2)).await().atMost(WAIT);
        String credential = first.getNodeCredential();
        assertFalse(credential.isEmpty(), "enrolling answers the node's own credential");

        StatusRuntimeException again = assertThrows(StatusRuntimeException.class,
                () -> agent("Bearer " + enrollment).register(AgentStub.host("id-a", 1)).await().atMost(WAIT));
        assertEquals(Status.Code.PERMISSION_DENIED, again.getStatus().getCode());
        assertTrue(again.getStatus().getDescription().contains("re-enrolling it needs an admin"), again.getStatus().getDescription());
        as(ADMIN).get("/api/v1/nodes/id-a").then().body("gpus.size()", org.hamcrest.Matchers.equalTo(2));
        assertEquals(Status.Code.PERMISSION_DENIED, code(() -> agent("Bearer " + enrollment).telemetry(Multi.createFrom().item(TelemetryReport.newBuilder()
                .setNodeId("id-a").build())).await().atMost(WAIT)), "an enrollment token only registers");

        // the credential registers its own node again (an inventory change) and answers no second credential
        RegisterReply own = agent("Bearer " + credential).register(AgentStub.host("id-a", 2)).await().atMost(WAIT);
        assertTrue(own.getNodeCredential().isEmpty());
        assertEquals(Status.Code.PERMISSION_DENIED, code(() -> agent("Bearer " + credential).register(AgentStub.host("id-b", 2)).await().atMost(WAIT)));
        assertEquals(Status.Code.PERMISSION_DENIED, code(() -> agent("Bearer " + credential).telemetry(Multi.createFrom().item(TelemetryReport.newBuilder()
                .setNodeId("id-b").build())).await().atMost(WAIT)));
        as(ADMIN).get("/api/v1/nodes/id-b").then().statusCode(404);
        as(ADMIN).get("/api/v1/tokens").then().body("find { it.node == 'id-a' }.createdBy", org.hamcrest.Matchers.notNullValue());
    }

    @Test
    void revokingACredentialCutsItsOpenStreamAndAnAdminReEnrollsTheNode() {
        String credential = agent("Bearer " + Api.token("agent", null)).register(AgentStub.host("id-c", 1)).await().atMost(WAIT).getNodeCredential();
        AssertSubscriber<Command> stream = agent("Bearer " + credential).commands(AgentHello.newBuilder().setNodeId("id-c").build()).subscribe()
                .withSubscriber(AssertSubscriber.create(10));
        String id = as(ADMIN).get("/api/v1/tokens").then().extract().path("find { it.node == 'id-c' }.id");

        // an admin's credential for the node replaces the live one, whose stream ends at once
        String replacement = as(ADMIN).body("{\"role\":\"agent\",\"node\":\"id-c\"}").post("/api/v1/tokens").then().statusCode(201).extract().path("token");
        Throwable cut = stream.awaitFailure(WAIT).getFailure();
        assertEquals(Status.Code.UNAUTHENTICATED, Status.fromThrowable(cut).getCode(), cut.toString());
        as(ADMIN).get("/api/v1/tokens/" + id).then().body("revokedAt", org.hamcrest.Matchers.notNullValue());
        assertEquals(Status.Code.UNAUTHENTICATED, code(() -> agent("Bearer " + credential).register(AgentStub.host("id-c", 1)).await().atMost(WAIT)));
        assertEquals(Status.Code.OK, code(() -> agent("Bearer " + replacement).register(AgentStub.host("id-c", 1)).await().atMost(WAIT)));
    }
}
