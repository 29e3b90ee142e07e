package dev.horizon.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The packaged control plane and agent started as separate processes, the way an operator runs them, and a
 * REST client for the control plane. Each process logs to a file in the test's directory, which a failed wait
 * prints.
 */
final class Horizon {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Path ROOT = Path.of(System.getProperty("horizon.root", "..")).toAbsolutePath().normalize();
    private static final Path CONTROL_PLANE_JAR = ROOT.resolve("control-plane/service/target/quarkus-app/quarkus-run.jar");
    private static final Path AGENT_JAR = ROOT.resolve("agent-native/target/quarkus-app/quarkus-run.jar");
    private static final Path SIM_NVML = ROOT.resolve("nvml-bindings/target/sim-nvml");
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    /** Each control plane's management port (health, metrics), by its API port; a restart on the same API port keeps it. */
    private static final Map<Integer, Integer> MANAGEMENT_PORTS = new java.util.concurrent.ConcurrentHashMap<>();

    private Horizon() {
    }

    /**
     * The lines of a log that report a fault: an error, an exception, or a warning but the known notices. A warning the
     * operator can do nothing about is noise that hides the ones that matter (Micrometer's duplicate gauge at every start was one).
     */
    static List<String> faults(String log) {
        return log.lines().filter(l -> l.contains(" ERROR ") || l.contains(" WARN ") || l.contains("Exception"))
                .toList();
    }

    /** A control plane on port with its H2 store in dataDir and admin token admin; without options no nodes are declared: agents bring them. */
    static Process controlPlane(Path dataDir, int port, String admin, String... options) {
        return controlPlane(dataDir, port, admin, Map.of(), options);
    }

    /** The same with environment variables set, such as HORIZON_DB_URL for a store on PostgreSQL. */
    static Process controlPlane(Path dataDir, int port, String admin, Map<String, String> env, String... options) {
        List<String> command = new ArrayList<>(List.of(JAVA, "-Dquarkus.http.port=" + port, "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.management.port=" + managementPort(port), "-Dquarkus.management.host=127.0.0.1",
                "-Dhorizon.data-dir=" + dataDir.toAbsolutePath(), "-Dhorizon.bootstrap-admin-token=" + admin, "-Dhorizon.planner.debounce-millis=50"));
        command.addAll(List.of(options));
        command.addAll(List.of("-jar", CONTROL_PLANE_JAR.toString()));
        return start(dataDir.resolve("control-plane-" + port + "-" + System.nanoTime() + ".log"), env, command.toArray(String[]::new));
    }

    /** A ready control plane: its process, port, an admin REST client and a fresh agent token. */
    record ControlPlane(Process process, int port, Rest admin, String agentToken) {
    }

    /** Starts a control plane (see {@link #controlPlane}) on a free port, waits until it is ready and makes an agent token. */
    static ControlPlane readyControlPlane(Path dataDir, String admin, String... options) throws Exception {
        int port = freePort();
        Process process = controlPlane(dataDir, port, admin, options);
        Rest rest = new Rest(port, admin);
        await("the control plane's readiness", 90, dataDir, rest::ready, Boolean::booleanValue);
        String token = rest.json("POST", "/api/v1/tokens", "{\"role\":\"agent\",\"label\":\"tests\"}", 201).get("token").asText();
        return new ControlPlane(process, port, rest, token);
    }

    /**
     * An agent on the simulated driver (8 H100s in the node's state file) registering node with the control plane on
     * controlPlanePort, sharing GPUs through the device plugin's config; options are more JVM options (-D...), which win.
     */
    static Process agent(Path dir, String node, int port, int controlPlanePort, String token, String... options) {
        return agent(dir, node, port, controlPlanePort, token, Map.of(), options);
    }

    /** The same with more environment variables (PATH, ...). */
    static Process agent(Path dir, String node, int port, int controlPlanePort, String token, Map<String, String> env, String... options) {
        List<String> command = new ArrayList<>(List.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-Djna.library.path=" + SIM_NVML,
                "-Dquarkus.http.port=" + port, "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.grpc.clients.control-plane.host=127.0.0.1",
                "-Dquarkus.grpc.clients.control-plane.port=" + controlPlanePort, "-Dhorizon.agent.node-name=" + node,
                "-Dhorizon.agent.telemetry-interval=500ms", "-Dhorizon.agent.reconnect-initial=200ms", "-Dhorizon.agent.reconnect-max=1s",
                "-Dhorizon.agent.sharing-config=" + dir.resolve(node + "-sharing.yaml"), "-Dhorizon.agent.state-dir=" + dir.resolve(node + "-state"),
                "-Dhorizon.agent.sharing-backend=DEVICE_PLUGIN"));
        command.addAll(List.of(options));
        command.addAll(List.of("-jar", AGENT_JAR.toString()));
        Map<String, String> environment = simulated(dir, node, env);
        environment.put("HORIZON_AGENT_TOKEN", token);
        // a simulated host is bare metal wherever the tests run (sharing-backend=AUTO must not find Kubernetes)
        environment.put("KUBERNETES_SERVICE_HOST", null);
        return start(dir.resolve("agent-" + node + "-" + System.nanoTime() + ".log"), environment, command.toArray(String[]::new));
    }

    /** The environment that puts a process on node's simulated GPUs, the ones its agent sees. */
    private static Map<String, String> simulated(Path dir, String node, Map<String, String> more) {
        Map<String, String> env = new java.util.HashMap<>(Map.of("HORIZON_SIM_GPUS", "8xH100-80GB", "HORIZON_SIM_STATE",
                dir.resolve(node + ".gpus.state").toString(), "HORIZON_SIM_NODE", node));
        env.putAll(more);
        return env;
    }

    /**
     * Tells node's simulated driver one command (nvml-bindings/README.md: "process gpu=0 pid=1 mem=2048", "fault gpu=1 lost"),
     * appended to its state file under the driver's own lock, as the agent's NVML calls see it at once.
     */
    static void sim(Path dir, String node, String command) throws Exception {
        Path state = dir.resolve(node + ".gpus.state");
        Process p = new ProcessBuilder("flock", state + ".lock", "sh", "-c", "printf '%s\\n' \"$0\" >> \"$1\"", command, state.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new AssertionError("sim command '" + command + "' failed: " + out);
    }

    /** `./horizon smi --json` on node's simulated GPUs: what NVML says, read by a process of its own. */
    static JsonNode smi(Path dir, String node) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("horizon-smi.sh").toString(), "--json").redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(simulated(dir, node, Map.of()));
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) throw new AssertionError("horizon smi --json failed: " + new String(out));
        return JSON.readTree(out);
    }

    /** env: variables to set, or with a null value to remove. */
    private static Process start(Path log, Map<String, String> env, String... command) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        env.forEach((name, value) -> {
            if (value == null) pb.environment().remove(name);
            else pb.environment().put(name, value);
        });
        try {
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a ./horizon command left: its exit status, stdout and stderr. */
    record Launched(int exit, String out, String err) {
    }

    /** ./horizon args in the repository root with env added to its environment, its stdin closed, within 60 s. */
    static Launched launch(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("horizon").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) throw new AssertionError("./horizon " + args[0] + " did not end");
        return new Launched(p.exitValue(), out, err);
    }

    /** SIGKILL: no shutdown hook, no flush; returns the exit status (137). */
    static int kill9(Process p) throws Exception {
        new ProcessBuilder("kill", "-9", String.valueOf(p.pid())).inheritIO().start().waitFor();
        return p.waitFor();
    }

    /** The management port (health, metrics) of the control plane on API port port: a free port, the same for each start there. */
    static int managementPort(int port) {
        return MANAGEMENT_PORTS.computeIfAbsent(port, p -> {
            try {
                return freePort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The credential node's agent was issued when it enrolled, as it keeps it in its state directory. */
    static String nodeCredential(Path dir, String node) throws IOException {
        return Files.readString(dir.resolve(node + "-state").resolve("node-credential")).strip();
    }

    /** A time the API wrote (ISO-8601 UTC, to the second) in epoch milliseconds; a missing one fails the test. */
    static long millis(JsonNode node, String field) {
        Long seconds = dev.horizon.api.scheduler.IsoSeconds.of(node, field);
        if (seconds == null) throw new AssertionError("no time " + field + " in " + node);
        return seconds * 1000;
    }

    /**
     * A free port below Linux's ephemeral range (32768-60999), for a process that is restarted on it: no outgoing
     * connection (its clients' reconnects to it among them) is given a port from below that range, so the port is
     * still free when it starts again. CI once saw a restart fail to bind an ephemeral port it had held.
     */
    static int freePort() throws IOException {
        IOException taken = null;
        for (int tries = 0; tries < 100; tries++) {
            int port = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(12_000);
            try (ServerSocket s = new ServerSocket(port)) {
                return port;
            } catch (IOException e) {
                taken = e;
            }
        }
        throw taken;
    }

    /** Waits up to seconds for probe to hold, else fails with what and the logs of the processes in logDir. */
    static <T> T await(String what, int seconds, Path logDir, ThrowingSupplier<T> read, Predicate<T> probe) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        Object last = null;
        while (System.nanoTime() < deadline) {
            try {
                T now = read.get();
                last = now;
                if (probe.test(now)) return now;
            } catch (IOException | AssertionError e) {
                // not listening yet or restarting, or not there yet (a 404 before the agent registers)
                last = e;
            }
            Thread.sleep(200);
        }
        StringBuilder logs = new StringBuilder();
        try (var files = Files.list(logDir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(p);
                logs.append("\n--- ").append(p.getFileName()).append(" (last 40 lines)\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
            }
        }
        throw new AssertionError(what + " did not happen within " + seconds + " s; last seen: " + last + logs);
    }

    @FunctionalInterface
    interface ThrowingSupplier<T> {
        T get() throws Exception;
    }

    /** REST calls to one control plane with one token. */
    static final class Rest {
        private final int port;
        private final String token;
        /** For a control plane on TLS: the context trusting its CA (the API port is then https); null for plaintext. */
        private final javax.net.ssl.SSLContext tls;
        private HttpClient http;

        Rest(int port, String token) {
            this(port, token, null);
        }

        Rest(int port, String token, javax.net.ssl.SSLContext tls) {
            this.port = port;
            this.token = token;
            this.tls = tls;
            reconnect();
        }

        int port() {
            return port;
        }

        /** The same control plane with another token. */
        Rest as(String other) {
            return new Rest(port, other, tls);
        }

        /** Drops pooled connections, which died with a killed process. */
        void reconnect() {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(tls == null ? 2 : 30));
            http = (tls == null ? b : b.sslContext(tls)).build();
        }

        HttpResponse<String> call(String method, String path, String body) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create((tls == null ? "http" : "https") + "://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (token != null) b.header("Authorization", "Bearer " + token);
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }

        /** The call's JSON answer, failing unless it has the expected status. */
        JsonNode json(String method, String path, String body, int expected) throws IOException, InterruptedException {
            HttpResponse<String> r = call(method, path, body);
            if (r.statusCode() != expected) {
                throw new AssertionError(method + " " + path + " answered " + r.statusCode() + ", expected " + expected + ": " + r.body());
            }
            return JSON.readTree(r.body());
        }

        /** Readiness, from the management port (health is not on the API port). */
        boolean ready() throws IOException, InterruptedException {
            return management("/q/health/ready").statusCode() == 200;
        }

        /** The Prometheus text from the management port. */
        String metrics() throws IOException, InterruptedException {
            HttpResponse<String> r = management("/q/metrics");
            if (r.statusCode() != 200) throw new AssertionError("/q/metrics answered " + r.statusCode());
            return r.body();
        }

        private HttpResponse<String> management(String path) throws IOException, InterruptedException {
            // on TLS the management port serves HTTPS with the API's certificate
            return http.send(HttpRequest.newBuilder(URI.create((tls == null ? "http" : "https") + "://127.0.0.1:" + managementPort(port) + path)).timeout(Duration.ofSeconds(30))
                    .build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
