package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.Inventory;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent bundle that pre-integration-test made (src/main/bundle/bundle.sh), unpacked as an infra team would and
 * started on a host with no JDK (PATH emptied) on the simulated driver, against a control plane. The JVM must use the
 * bundle's AOT cache (-XX:AOTMode=on fails the start otherwise). Prints the figures the note quotes.
 */
class AgentBundleIT {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void theBundleStartsTheAgentWithNoJdkOnThePathAndRegisters() throws Exception {
        Path built = BundleProcess.built("horizon.bundle.dir");
        Path tar = built.resolve("horizon-agent.tar.gz");
        assertTrue(Files.exists(built.resolve("Dockerfile")), "the DaemonSet image recipe sits beside the bundle");
        assertEquals(0, new ProcessBuilder("tar", "-xzf", tar.toString(), "-C", dir.toString()).inheritIO().start().waitFor());
        Path script = dir.resolve("horizon-agent/bin/horizon-agent");
        assertTrue(Files.isExecutable(script), "the bundle unpacks to horizon-agent/bin/horizon-agent");

        FakeControlPlane controlPlane = new FakeControlPlane();
        controlPlane.start();
        int port = freePort();
        Map<String, String> env = Map.of("HORIZON_SIM_GPUS", "2xH100-80GB", "HORIZON_SIM_STATE", dir.resolve("gpus.state").toString(),
                "HORIZON_AGENT_TOKEN", "bundle-token", "HORIZON_AGENT_JAVA_OPTS", "-XX:AOTMode=on -Dhorizon.agent.node-name=bundle-node"
                        + " -Dhorizon.agent.state-dir=" + dir.resolve("state") + " -Dhorizon.agent.sharing-backend=DEVICE_PLUGIN"
                        + " -Dhorizon.agent.sharing-config=" + dir.resolve("sharing.yaml"));
        Path log = dir.resolve("agent.log");
        long launched = System.nanoTime();
        Process agent = BundleProcess.start(dir.resolve("empty-path"), log, env,
                List.of(script.toString(), "--port", String.valueOf(port), "--control-plane", "http://127.0.0.1:" + controlPlane.port()));
        try {
            while (controlPlane.registrations.isEmpty()) {
                assertTrue(agent.isAlive(), () -> "the bundled agent exited: " + BundleProcess.read(log));
                assertTrue(System.nanoTime() - launched < WAIT.toNanos(), () -> "no registration within " + WAIT + ": " + BundleProcess.read(log));
                Thread.sleep(20);
            }
            double registeredSeconds = (System.nanoTime() - launched) / 1e9;
            long rssMiB = rssKiB(agent.pid()) / 1024;
            System.out.printf("agent bundle: %s is %.1f MiB (unpacked %.1f MiB); registered %.2f s after launch; RSS %d MiB%n",
                    tar.getFileName(), Files.size(tar) / (1024.0 * 1024.0), BundleProcess.mebibytes(dir.resolve("horizon-agent")),
                    registeredSeconds, rssMiB);

            Inventory inv = controlPlane.registrations.get(0);
            assertEquals("bundle-node", inv.getNodeName());
            assertEquals(List.of("H100-80GB", "H100-80GB"), inv.getGpusList().stream().map(GpuInventory::getModel).toList());
            assertEquals("Bearer bundle-token", controlPlane.authorizations.get(0));
            assertEquals(200, live(port), "health on the port it was given");
            assertFalse(BundleProcess.read(log).contains("[error"), () -> "the JVM complained: " + BundleProcess.read(log));
        } finally {
            agent.destroy();
            if (!agent.waitFor(20, TimeUnit.SECONDS)) agent.destroyForcibly();
            controlPlane.stop();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static long rssKiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D+", ""));
        }
        return -1;
    }

    private static int live(int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/live")).timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                return http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }
}
