package dev.horizon.service;

import static dev.horizon.service.Api.ADMIN;
import static dev.horizon.service.Api.as;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.GpuTelemetry;
import dev.horizon.agent.v1.Health;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MigMode;
import dev.horizon.agent.v1.MutinyAgentServiceGrpc.MutinyAgentServiceStub;
import dev.horizon.agent.v1.TelemetryReport;
import dev.horizon.service.planning.Planner;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.mutiny.Multi;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An agent that goes silent (as after a SIGKILL) loses its node, and the node's jobs are placed again elsewhere. */
@QuarkusTest
@TestProfile(HeartbeatProfile.class)
class HeartbeatTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TestHTTPResource("/")
    URL base;
    @Inject
    Planner planner;

    private ManagedChannel channel;
    private ScheduledExecutorService beats;

    @BeforeEach
    void connect() {
        channel = ManagedChannelBuilder.forAddress(base.getHost(), base.getPort()).usePlaintext().build();
        beats = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void disconnect() {
        beats.shutdownNow();
        channel.shutdownNow();
    }


    private static Inventory host(String name) {
        Inventory.Builder inv = Inventory.newBuilder().setNodeName(name);
        for (int i = 0; i < 2; i++) {
            inv.addGpus(GpuInventory.newBuilder().setIndex(i).setUuid("GPU-" + name + "-" + i).setModel("H100-80GB").setMemoryMib(81559)
                    .setMigMode(MigMode.MIG_DISABLED).setHealth(Health.HEALTHY));
        }
        return inv.build();
    }

    private static TelemetryReport idle(String name) {
        return TelemetryReport.newBuilder().setNodeId(name).addGpus(GpuTelemetry.newBuilder().setUuid("GPU-" + name + "-0")).build();
    }

    private static String node(String name, String field) {
        return as(ADMIN).get("/api/v1/nodes/" + name).then().extract().path(field);
    }

    private static String job(String id, String field) {
        return as(ADMIN).get("/api/v1/jobs/" + id).then().extract().path(field);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not within " + WAIT + ": " + what);
            Thread.sleep(100);
        }
    }

    /**
     * The plan leaves a lost node out, so a job only it can hold was told of no room without a word of the node: the
     * reason names it and since when its agent is silent.
     */
    @Test
    void aJobOnlyALostNodeCanHoldNamesItAndSinceWhen() throws InterruptedException {
        MutinyAgentServiceStub up = AgentStub.enrolled(channel, host("host-up"));
        beats.scheduleAtFixedRate(() -> up.telemetry(Multi.createFrom().item(idle("host-up"))).await().atMost(WAIT), 0, 300, TimeUnit.MILLISECONDS);
        Inventory a100 = Inventory.newBuilder().setNodeName("host-a100").addGpus(host("host-a100").getGpus(0).toBuilder().setModel("A100-80GB")).build();
        AgentStub.enrolled(channel, a100);
        await("host-a100 is LOST", () -> "LOST".equals(node("host-a100", "health")));
        assertEquals("HEALTHY", node("host-up", "health"), "the plan has a node to plan on, which cannot hold the job");
        Api.team("lost-wait", 0.2);
        String id = Api.submit(ADMIN, "{\"name\":\"needs-an-a100\",\"team\":\"lost-wait\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":1,"
                + "\"gpuTypes\":[\"A100-80GB\"]}}");
        planner.planNow();
        as(ADMIN).get("/api/v1/jobs/" + id + "/explanation").then().body("state", equalTo("PENDING"))
                .body("reason", matchesPattern("no node that takes work now can hold it while host-a100 \\(lost: nothing heard from its agent since "
                        + Api.ISO_SECOND + "\\) is out; it waits until that agent reports again \\(restart it, or bring the host back\\)"));
        as(ADMIN).delete("/api/v1/jobs/" + id).then().statusCode(200);
    }

    @Test
    void aSilentAgentsNodeIsLostAndItsJobsArePlacedElsewhereUntilItReportsAgain() throws InterruptedException {
        // each node's agent with its own credential, as enrolment hands them out
        Map<String, MutinyAgentServiceStub> agents = new ConcurrentHashMap<>();
        Set<String> reporting = ConcurrentHashMap.newKeySet();
        beats.scheduleAtFixedRate(() -> reporting.forEach(n -> agents.get(n).telemetry(Multi.createFrom().item(idle(n))).await().atMost(WAIT)), 0,
                300, TimeUnit.MILLISECONDS);

        agents.put("host-a", AgentStub.enrolled(channel, host("host-a")));
        reporting.add("host-a");
        Api.team("research", 0.5);
        String id = Api.submit(ADMIN, Api.job("moves-on", "research", "TRAINING", 2));
        planner.planNow();
        assertEquals("host-a[0-1]", job(id, "placement"), "host-a is the only node when the job is placed");

        agents.put("host-b", AgentStub.enrolled(channel, host("host-b")));
        reporting.add("host-b");
        // longer than the timeout: both agents report, so neither node is lost
        Thread.sleep(3000);
        assertEquals("HEALTHY", node("host-a", "health"));
        assertEquals("host-a[0-1]", job(id, "placement"));

        reporting.remove("host-a");
        await("host-a is LOST", () -> "LOST".equals(node("host-a", "health")));
        as(ADMIN).get("/api/v1/nodes").then().body("find { it.name == 'host-a' }.health", equalTo("LOST"))
                .body("find { it.name == 'host-a' }.healthReason", matchesPattern("nothing heard from its agent since " + Api.ISO_SECOND))
                .body("find { it.name == 'host-b' }.health", equalTo("HEALTHY"));
        await("the job runs on host-b", () -> "host-b[0-1]".equals(job(id, "placement")));
        as(ADMIN).get("/api/v1/jobs/" + id).then().body("state", equalTo("RUNNING")).body("preemptions", equalTo(1));
        as(ADMIN).get("/api/v1/jobs/" + id + "/explanation").then()
                .body("lastPreemption", startsWith("node lost: "));
        // a job only both hosts can hold: refused as one no node could ever hold while host-a's agent was silent
        String both = Api.submit(ADMIN, "{\"name\":\"both-hosts\",\"team\":\"research\",\"class\":\"TRAINING\",\"replicas\":2,\"perReplica\":{\"gpus\":2}}");
        as(ADMIN).delete("/api/v1/jobs/" + both).then().statusCode(200);

        reporting.add("host-a");
        await("host-a reports again and is HEALTHY", () -> "HEALTHY".equals(node("host-a", "health")));
        as(ADMIN).get("/api/v1/nodes/host-a").then().body("healthReason", equalTo(null));
    }
}
