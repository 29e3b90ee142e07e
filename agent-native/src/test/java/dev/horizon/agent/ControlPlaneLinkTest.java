package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.TelemetryReport;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The link's own stop: the streams it cancels call back as a broken link would, which on every normal shutdown logged
 * "command stream: CANCELLED: the agent is stopping; retrying" as a WARN and scheduled a reconnect.
 */
class ControlPlaneLinkTest {
    private static final Inventory NODE = Inventory.newBuilder().setNodeName("node-a").build();
    private static final TelemetryReport REPORT = TelemetryReport.getDefaultInstance();
    private static final Duration TELEMETRY_INTERVAL = Duration.ofSeconds(5);

    @TempDir
    Path state;

    private final FakeControlPlane controlPlane = new FakeControlPlane();
    private final ControlPlaneLink link = new ControlPlaneLink();
    private final Logger logger = Logger.getLogger(ControlPlaneLink.class.getName());
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level level;
    private ManagedChannel channel;

    @BeforeEach
    void connect() {
        controlPlane.start();
        channel = NettyChannelBuilder.forAddress("localhost", controlPlane.port()).usePlaintext().build();
        // reconnecting is due 10 ms after the link breaks: a retry scheduled by the stop would be made by the next tick
        AgentConfig config = (AgentConfig) Proxy.newProxyInstance(AgentConfig.class.getClassLoader(), new Class<?>[] {AgentConfig.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "telemetryBuffer" -> 10;
                    case "telemetryInterval" -> TELEMETRY_INTERVAL;
                    case "reconnectInitial", "reconnectMax" -> Duration.ofMillis(10);
                    case "stateDir" -> state;
                    case "token" -> Optional.of("test-agent-token");
                    default -> null;
                });
        link.channel = channel;
        link.host = "localhost";
        link.port = controlPlane.port();
        link.config = config;
        link.credential = new NodeCredential();
        link.credential.config = config;
        link.tick(NODE, REPORT);
        assertTrue(link.connected(), link.problem());
        level = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @AfterEach
    void close() throws InterruptedException {
        logger.removeHandler(capture);
        logger.setLevel(level);
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        controlPlane.stop();
    }

    @Test
    void theAgentsOwnStopIsNoLostLinkItIsNotWarnedAboutNorRetried() throws InterruptedException {
        link.stop();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (link.connected() && System.nanoTime() < deadline) Thread.sleep(10);
        assertFalse(link.connected(), "the cancelled streams never called back");
        Thread.sleep(200); // the telemetry stream's close, which follows the command stream's cancel

        List<String> warned = logged.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).map(LogRecord::getMessage).toList();
        assertEquals(List.of(), warned, "a normal shutdown warns of nothing");
        assertTrue(logged.stream().anyMatch(r -> r.getMessage().contains("as the agent stops")), "said at debug level: " + logged);

        link.tick(NODE, REPORT);
        assertEquals(1, controlPlane.registrations.size(), "a stopped link does not connect again");
        assertEquals("the agent is stopping", link.problem());
    }

    /**
     * Only the control plane's log said a node waits for an admin's approval. The agent says it once, asks again until
     * the node is approved, and says that once.
     */
    @Test
    void aNodeAwaitingApprovalIsSaidOnceAndItsApprovalOnce() {
        AtomicLong now = new AtomicLong();
        link.nanoTime = now::get;
        controlPlane.awaitingApproval = true;
        Inventory changed = NODE.toBuilder().setNvlinkDomain("rack-2").build(); // a changed inventory registers again
        assertEquals(List.of(0L, 5L), registeredAt(changed, now, 3), "the changed inventory, then one ask a telemetry interval later");
        assertTrue(link.awaitingApproval());
        controlPlane.awaitingApproval = false;
        assertEquals(List.of(0L), registeredAt(changed, now, 12), "the ask that was due says it was approved; then no more asking");
        assertFalse(link.awaitingApproval());
        List<String> said = logged.stream().map(LogRecord::getMessage).filter(m -> m.contains("approv")).toList();
        assertEquals(List.of("node node-a waits for an admin's approval and gets no work until then: an admin runs ./horizon node approve node-a",
                "node node-a was approved by an admin; it takes work now"), said);
        assertEquals(1, logged.stream().filter(r -> r.getMessage().startsWith("registered with")).count(), "the changed inventory, once");
    }

    /**
     * Thousands of nodes awaiting approval asked the control plane every telemetry interval: each ask now waits twice the
     * last, from one interval up to a minute, and an approval starts the waits over.
     */
    @Test
    void aNodeAwaitingApprovalAsksAgainLessOftenUpToAMinuteAndStartsOverOnceApproved() {
        AtomicLong now = new AtomicLong();
        link.nanoTime = now::get;
        controlPlane.awaitingApproval = true;
        Inventory changed = NODE.toBuilder().setNvlinkDomain("rack-2").build();
        assertEquals(List.of(0L, 5L, 15L, 35L, 75L, 135L, 195L, 255L), registeredAt(changed, now, 60), "5 minutes of 5 s ticks");

        controlPlane.awaitingApproval = false;
        assertEquals(List.of(15L), registeredAt(changed, now, 24), "the ask due at 315 s learns of the approval, and is the last");
        controlPlane.awaitingApproval = true;
        assertEquals(List.of(0L, 5L, 15L), registeredAt(NODE, now, 7), "awaiting again (its changed inventory told at once): from one interval, not a minute");
    }

    /** The seconds after the first of ticks every telemetry interval at which the link registered. */
    private List<Long> registeredAt(Inventory inventory, AtomicLong now, int ticks) {
        long first = now.get();
        List<Long> at = new ArrayList<>();
        for (int tick = 0; tick < ticks; tick++) {
            int before = controlPlane.registrations.size();
            link.tick(inventory, REPORT);
            if (controlPlane.registrations.size() > before) at.add(TimeUnit.NANOSECONDS.toSeconds(now.get() - first));
            now.addAndGet(TELEMETRY_INTERVAL.toNanos());
        }
        return at;
    }

    /**
     * A used-up enrollment token, or GPUs registered on another node, was logged as "control plane ... unreachable
     * (PERMISSION_DENIED: ...)": it answered.
     */
    @Test
    void aControlPlaneThatTurnsTheAgentAwayIsSaidToRefuseItNotToBeUnreachable() {
        controlPlane.refusal = io.grpc.Status.ALREADY_EXISTS.withDescription("gpus[0].uuid: GPU GPU-1 is registered on node node-b");
        link.tick(NODE.toBuilder().setNvlinkDomain("rack-2").build(), REPORT); // a changed inventory registers again
        List<String> warned = logged.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).map(LogRecord::getMessage).toList();
        assertEquals(1, warned.size(), warned.toString());
        assertTrue(warned.get(0).startsWith("control plane at localhost:" + controlPlane.port() + " refused this agent (ALREADY_EXISTS: gpus[0].uuid"),
                warned.get(0));
    }
}
