package dev.horizon.agent;

import static dev.horizon.agent.FakeControlPlaneResource.CONTROL_PLANE;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.ApplyMigLayout;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MigSlot;
import dev.horizon.agent.v1.MemoryViolation;
import dev.horizon.agent.v1.SetSharing;
import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.sim.SimulatedDriver;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The agent on the simulated driver (2 x H100-80GB, set by surefire) against a fake control plane: it registers and
 * streams telemetry, applies MIG layouts (seen through NVML) and refuses bad ones with the reason, writes the sharing
 * config, kills a process over its memory share, reports a lost GPU and Xids, reconnects with its buffered reports, and drains.
 */
@QuarkusTest
@WithTestResource(FakeControlPlaneResource.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    Nvml nvml;
    @Inject
    MemoryGuard memoryGuard;
    @Inject
    AgentConfig config;

    @Test
    @Order(1)
    void registersWithTheTokenAndStreamsTelemetry() throws Exception {
        await(() -> !CONTROL_PLANE.registrations.isEmpty(), "registration");
        Inventory inv = CONTROL_PLANE.registrations.get(0);
        assertEquals("test-node", inv.getNodeName());
        assertEquals(2, inv.getGpusCount());
        for (GpuInventory g : inv.getGpusList()) {
            assertEquals("H100-80GB", g.getModel());
            assertEquals(81559, g.getMemoryMib());
            assertEquals(dev.horizon.agent.v1.Health.HEALTHY, g.getHealth());
        }
        assertEquals(FakeControlPlane.ENROLLMENT, CONTROL_PLANE.authorizations.get(0), "the first Register enrolls with horizon.agent.token");
        CONTROL_PLANE.awaitReport(r -> r.getNodeId().equals("test-node") && r.getGpusCount() == 2 && r.getGpus(0).hasUtilizationPercent(), WAIT);
        Path kept = config.stateDir().resolve(NodeCredential.FILE);
        assertEquals(FakeControlPlane.credential("test-node"), Files.readString(kept).strip(), "the credential Register answered is kept");
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(kept),
                "readable by the agent's user only");
        assertTrue(inv.getEnrollmentNonce().length() >= 22, "an enrollment carries its nonce, for a retry: " + inv.getEnrollmentNonce());
        assertFalse(Files.exists(config.stateDir().resolve(NodeCredential.NONCE_FILE)), "the nonce goes once the enrollment's credential is kept");
    }

    @Test
    @Order(2)
    void appliesAMigLayoutIdempotently() throws Exception {
        String gpu = uuid(0);
        Command layout = mig("mig-1", gpu, "3g.40gb", 4, "2g.20gb", 2, "1g.10gb", 0, "1g.10gb", 1);
        CommandResult result = CONTROL_PLANE.send(layout, WAIT);
        assertTrue(result.getSuccess(), result.getError());
        assertEquals(Set.of("3g.40gb@4", "2g.20gb@2", "1g.10gb@0", "1g.10gb@1"), layoutOnGpu0());
        await(() -> lastRegistration().getGpus(0).getMigDevicesCount() == 4, "re-registration with the 4 MIG devices");
        assertEquals("Bearer " + FakeControlPlane.credential("test-node"), CONTROL_PLANE.authorizations.get(CONTROL_PLANE.authorizations.size() - 1),
                "every call after enrollment carries the node's own credential");
        assertEquals("", lastRegistration().getEnrollmentNonce(), "a Register with the node's credential enrolls nothing: no nonce");

        Set<String> uuids = nvml.session().migDevices(0).stream().map(MigDevice::uuid).collect(Collectors.toSet());
        CommandResult again = CONTROL_PLANE.send(layout.toBuilder().setId("mig-2").build(), WAIT);
        assertTrue(again.getSuccess(), again.getError());
        assertEquals(uuids, nvml.session().migDevices(0).stream().map(MigDevice::uuid).collect(Collectors.toSet()),
                "the same layout again changes nothing");
    }

    @Test
    @Order(3)
    void refusesBadLayoutsWithTheReasonAndTouchesNothing() throws Exception {
        String gpu = uuid(0);
        CommandResult unknown = CONTROL_PLANE.send(mig("mig-3", gpu, "5g.50gb", 0), WAIT);
        assertFalse(unknown.getSuccess());
        assertTrue(unknown.getError().contains("unknown MIG profile '5g.50gb'") && unknown.getError().contains("3g.40gb"), unknown.getError());

        CommandResult offGpu = CONTROL_PLANE.send(mig("mig-3b", uuid(1), "5g.50gb", 0), WAIT);
        assertFalse(offGpu.getSuccess());
        assertFalse(nvml.session().migMode(1).current(), "a bad layout for a GPU with MIG off leaves MIG off");

        CommandResult overlap = CONTROL_PLANE.send(mig("mig-4", gpu, "3g.40gb", 4, "2g.20gb", 4), WAIT);
        assertFalse(overlap.getSuccess());
        assertTrue(overlap.getError().contains("overlap"), overlap.getError());

        int gi = nvml.session().migDevices(0).stream().filter(d -> d.placement().start() == 0).findFirst().orElseThrow().gpuInstanceId();
        SimulatedDriver sim = SimulatedDriver.require();
        sim.command("process gpu=0 pid=777 mem=1000 gi=" + gi + " ci=0 name=infer.py");
        try {
            CommandResult busy = CONTROL_PLANE.send(mig("mig-5", gpu, "7g.80gb", 0), WAIT);
            assertFalse(busy.getSuccess());
            assertTrue(busy.getError().contains("777 (infer.py)"), busy.getError());
            assertEquals(Set.of("3g.40gb@4", "2g.20gb@2", "1g.10gb@0", "1g.10gb@1"), layoutOnGpu0());
        } finally {
            sim.command("process-exit pid=777");
        }
    }

    @Test
    @Order(4)
    void memoryGuardKillsAProcessOverItsShare() throws Exception {
        String gpu = uuid(1);
        CommandResult overcommit = CONTROL_PLANE.send(sharing("share-1", gpu, SetSharing.Mode.MPS, 4, 50, 30000), WAIT);
        assertFalse(overcommit.getSuccess());
        assertTrue(overcommit.getError().contains("over-commit"), overcommit.getError());

        CommandResult shared = CONTROL_PLANE.send(sharing("share-2", gpu, SetSharing.Mode.TIME_SLICING, 4, 0, 0), WAIT);
        assertTrue(shared.getSuccess(), shared.getError());
        String file = Files.readString(Path.of(config.sharingConfig().toString()));
        assertTrue(file.contains("timeSlicing:") && file.contains("replicas: 4") && file.contains(gpu), file);

        Process greedy = new ProcessBuilder("sleep", "300").start();
        Process polite = new ProcessBuilder("sleep", "300").start();
        SimulatedDriver sim = SimulatedDriver.require();
        try {
            // a quarter of 81559 MiB is 20389 MiB
            sim.command("process gpu=1 pid=" + greedy.pid() + " mem=30000 name=greedy.py");
            sim.command("process gpu=1 pid=" + polite.pid() + " mem=20000 name=polite.py");
            await(() -> memoryGuard.violations().stream().anyMatch(v -> v.pid() == greedy.pid()), "the greedy process reported");
            await(() -> !greedy.isAlive(), "the greedy process killed");
            CONTROL_PLANE.awaitReport(r -> r.getViolationsList().stream().anyMatch(v -> v.getPid() == greedy.pid() && v.getGpuUuid().equals(gpu)
                    && v.getAction() == MemoryViolation.Action.KILLED && v.getUsedMib() == 30000 && v.getAllowedMib() == 81559 / 4), WAIT);
            assertTrue(polite.isAlive());
            assertTrue(memoryGuard.violations().stream().noneMatch(v -> v.pid() == polite.pid()));
        } finally {
            sim.command("process-exit pid=" + greedy.pid());
            sim.command("process-exit pid=" + polite.pid());
            greedy.destroyForcibly();
            polite.destroyForcibly();
        }
    }

    @Test
    @Order(5)
    void healthAndMetricsAnswer() {
        given().get("/q/health/live").then().statusCode(200).body(containsString("\"UP\""));
        given().get("/q/health/ready").then().statusCode(200).body(containsString("control-plane"));
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("DCGM_FI_DEV_FB_USED{Hostname=\"test-node\",UUID=\"" + uuid(1) + "\""))
                .body(containsString("horizon_agent_memory_violations_total"))
                .body(containsString("horizon_agent_commands_total"));
    }

    @Test
    @Order(6)
    void reportsALostGpuAndReconnectsWithBufferedReports() throws Exception {
        String gpu = uuid(1);
        SimulatedDriver sim = SimulatedDriver.require();
        sim.command("fault gpu=1 lost");
        try {
            CONTROL_PLANE.awaitReport(r -> r.getEventsList().stream()
                    .anyMatch(e -> e.getKind() == HealthEvent.Kind.GPU_LOST && e.getGpuUuid().equals(gpu)), WAIT);

            int registrations = CONTROL_PLANE.registrations.size();
            long stopped = System.currentTimeMillis();
            CONTROL_PLANE.stop();
            await(() -> given().get("/q/health/ready").statusCode() == 503, "readiness down without the control plane");
            Thread.sleep(config.telemetryInterval().toMillis() * 3);
            long restarted = System.currentTimeMillis();
            CONTROL_PLANE.start();
            await(() -> CONTROL_PLANE.registrations.size() > registrations, "registration again");
            assertEquals(dev.horizon.agent.v1.Health.LOST, lastRegistration().getGpus(1).getHealth());
            assertEquals("H100-80GB", lastRegistration().getGpus(1).getModel(), "a lost GPU keeps its last-read model, which the control plane requires");
            CONTROL_PLANE.awaitReport(r -> r.getObservedAtMs() > stopped && r.getObservedAtMs() < restarted, WAIT);
            await(() -> given().get("/q/health/ready").statusCode() == 200, "readiness up again");
        } finally {
            sim.command("fault clear");
        }
    }

    @Test
    @Order(7)
    void reportsXidsAndDrainsOnceTheGpusAreEmpty() throws Exception {
        String gpu = uuid(0);
        SimulatedDriver.require().command("fault gpu=0 xid=79");
        CONTROL_PLANE.awaitReport(r -> r.getEventsList().stream()
                .anyMatch(e -> e.getKind() == HealthEvent.Kind.XID && e.getXid() == 79 && e.getGpuUuid().equals(gpu)), WAIT);

        CommandResult drained = CONTROL_PLANE.send(Command.newBuilder().setId("drain-1")
                .setDrain(dev.horizon.agent.v1.Drain.newBuilder().setReason("maintenance")).build(), WAIT);
        assertTrue(drained.getSuccess(), drained.getError());
        given().get("/q/metrics").then().body(containsString("horizon_agent_draining 1.0"));
    }

    @Test
    @Order(8)
    void withoutPrivilegeAGpusMigDevicesAreUnknownAndItRegistersUnhealthyWithTheReason() throws Exception {
        SimulatedDriver sim = SimulatedDriver.require();
        int registrations = CONTROL_PLANE.registrations.size();
        sim.command("driver unprivileged=1");
        try {
            await(() -> CONTROL_PLANE.registrations.size() > registrations
                    && lastRegistration().getGpus(0).getHealth() == dev.horizon.agent.v1.Health.UNHEALTHY, "registration with GPU 0 unhealthy");
            GpuInventory gpu0 = lastRegistration().getGpus(0);
            assertTrue(gpu0.getHealthReason().contains("MIG devices are unknown") && gpu0.getHealthReason().contains("run the agent privileged"),
                    gpu0.getHealthReason());
            assertEquals(dev.horizon.agent.v1.MigMode.MIG_ENABLED, gpu0.getMigMode());
            assertEquals(0, gpu0.getMigDevicesCount(), "no MIG devices made up");
            assertEquals("H100-80GB", gpu0.getModel());
            assertEquals(81559, gpu0.getMemoryMib());
            assertEquals(dev.horizon.agent.v1.Health.HEALTHY, lastRegistration().getGpus(1).getHealth(), "the other GPU is untouched");
        } finally {
            sim.command("driver unprivileged=0");
        }
        await(() -> lastRegistration().getGpus(0).getHealth() == dev.horizon.agent.v1.Health.HEALTHY
                && lastRegistration().getGpus(0).getMigDevicesCount() == 4, "healthy again once privileged");
    }

    @Test
    @Order(9)
    void inAContainerThatSeesOnlyMigDevicesTheGpusMemoryIsItsMigDevices() throws Exception {
        SimulatedDriver sim = SimulatedDriver.require();
        long migMemory = nvmlDevices().stream().mapToLong(d -> d.memory().totalMiB()).sum();
        sim.command("driver container=mig-only");
        try {
            await(() -> lastRegistration().getGpus(0).getMemoryMib() == migMemory, "registration with the MIG devices' memory");
            GpuInventory gpu0 = lastRegistration().getGpus(0);
            assertEquals(dev.horizon.agent.v1.Health.HEALTHY, gpu0.getHealth(), gpu0.getHealthReason());
            assertEquals("H100-80GB", gpu0.getModel());
            assertEquals(81559, lastRegistration().getGpus(1).getMemoryMib(), "a GPU without MIG is seen whole");
            given().get("/q/metrics").then().body(containsString("DCGM_FI_DEV_FB_FREE{Hostname=\"test-node\",UUID=\"" + uuid(0)));
        } finally {
            sim.command("driver container=all");
        }
    }

    /** Last: after it the agent follows epoch 7, and the other tests' commands carry no epoch (0). */
    @Test
    @Order(10)
    void refusesACommandFromAnOlderLeaderEpoch() throws Exception {
        CommandResult current = CONTROL_PLANE.send(drain("epoch-7", 7), WAIT);
        assertTrue(current.getSuccess(), current.getError());

        CommandResult stale = CONTROL_PLANE.send(drain("epoch-6", 6), WAIT);
        assertFalse(stale.getSuccess(), "a command from the deposed leader of epoch 6 is refused");
        assertTrue(stale.getError().contains("epoch 6") && stale.getError().contains("epoch 7"), stale.getError());

        CommandResult again = CONTROL_PLANE.send(drain("epoch-7-again", 7), WAIT);
        assertTrue(again.getSuccess(), "the current leader's commands still run: " + again.getError());
    }

    private static Command drain(String id, long leaderEpoch) {
        return Command.newBuilder().setId(id).setLeaderEpoch(leaderEpoch).setDrain(dev.horizon.agent.v1.Drain.newBuilder().setReason("epoch test"))
                .build();
    }

    private static Set<String> layoutOnGpu0() {
        return nvmlDevices().stream().map(d -> d.profile() + "@" + d.placement().start()).collect(Collectors.toSet());
    }

    private static List<MigDevice> nvmlDevices() {
        return io.quarkus.arc.Arc.container().instance(Nvml.class).get().session().migDevices(0);
    }

    private static Command mig(String id, String gpu, Object... profileStartPairs) {
        ApplyMigLayout.Builder layout = ApplyMigLayout.newBuilder().setGpuUuid(gpu);
        for (int i = 0; i < profileStartPairs.length; i += 2) {
            layout.addSlots(MigSlot.newBuilder().setProfile((String) profileStartPairs[i]).setStart((Integer) profileStartPairs[i + 1]));
        }
        return Command.newBuilder().setId(id).setApplyMigLayout(layout).build();
    }

    private static Command sharing(String id, String gpu, SetSharing.Mode mode, int replicas, int threads, long memoryMiB) {
        return Command.newBuilder().setId(id).setSetSharing(SetSharing.newBuilder().setGpuUuid(gpu).setMode(mode).setReplicas(replicas)
                .setActiveThreadPercentage(threads).setMemoryLimitMib(memoryMiB)).build();
    }

    /** A node awaiting an admin's approval is not ready, as a kubelet's node stays NotReady; its agent said UP. */
    @Test
    @Order(11)
    void aNodeAwaitingApprovalIsNotReadyAndSaysWhatTheAdminRuns() throws Exception {
        CONTROL_PLANE.awaitingApproval = true;
        try {
            CONTROL_PLANE.stop();
            CONTROL_PLANE.start(); // the agent connects again, and registers
            // down at once for the lost link; then, connected again, for the approval it awaits
            await(() -> given().get("/q/health/ready").asString().contains(
                    "node test-node awaits an admin's approval; it gets no work until ./horizon node approve test-node"), "readiness saying so");
            given().get("/q/health/ready").then().statusCode(503);
        } finally {
            CONTROL_PLANE.awaitingApproval = false;
        }
        await(() -> given().get("/q/health/ready").statusCode() == 200, "ready once approved");
    }

    private static String uuid(int index) {
        return CONTROL_PLANE.registrations.get(0).getGpus(index).getUuid();
    }

    private static Inventory lastRegistration() {
        return CONTROL_PLANE.registrations.get(CONTROL_PLANE.registrations.size() - 1);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(50);
        }
    }
}
