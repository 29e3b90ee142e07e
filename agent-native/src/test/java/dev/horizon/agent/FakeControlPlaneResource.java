package dev.horizon.agent;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;

/** Starts the fake control plane before the agent and points the agent's gRPC client at it. */
public class FakeControlPlaneResource implements QuarkusTestResourceLifecycleManager {
    static final FakeControlPlane CONTROL_PLANE = new FakeControlPlane();

    @Override
    public Map<String, String> start() {
        CONTROL_PLANE.start();
        // In tests quarkus-grpc dials test-port (9001 unless set), not port.
        String port = String.valueOf(CONTROL_PLANE.port());
        // a fresh state directory: sharing saved by an earlier run must not be applied again in this one
        String stateDir;
        try {
            stateDir = Files.createTempDirectory("horizon-agent-test-state").toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of("quarkus.grpc.clients.control-plane.host", "localhost", "quarkus.grpc.clients.control-plane.port", port,
                "quarkus.grpc.clients.control-plane.test-port", port, "horizon.agent.state-dir", stateDir);
    }

    @Override
    public void stop() {
        try {
            CONTROL_PLANE.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
