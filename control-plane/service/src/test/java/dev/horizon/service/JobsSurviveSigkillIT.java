package dev.horizon.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged service as its own process: 1,000 jobs go in over REST, the process is killed with
 * SIGKILL (no shutdown hook, no flush), and a new process on the same data directory still has every
 * job in the state it had. A second kill lands while the planner is computing or committing a plan
 * (a thread dump taken just before shows it there): afterwards no accepted job is lost and no GPU is
 * held by two jobs.
 */
class JobsSurviveSigkillIT {
    private static final String ADMIN = "it-admin-token";
    private static final int JOBS = 1000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private HttpClient http = newClient();
    /** Health is on the management port (quarkus.management.port); one for the test, reused by each restart. */
    private final int managementPort = freePortUnchecked();

    @TempDir
    Path dataDir;

    @Test
    void everySubmittedJobSurvivesAKill9() throws Exception {
        int port = freePort();
        Process first = start(port);
        try {
            awaitReady(port);
            send(port, "POST", "/api/v1/teams", "{\"name\":\"durable\",\"share\":0.5}", 201);
            for (int i = 0; i < JOBS; i++) {
                String job = "{\"name\":\"job-" + i + "\",\"team\":\"durable\",\"class\":\"BATCH_INFERENCE\",\"perReplica\":{\"gpus\":1},"
                        + "\"durationEstimateSeconds\":7200}";
                send(port, "POST", "/api/v1/jobs", job, 201);
            }
            Map<String, String> before = settledStates(port);
            assertEquals(JOBS, before.size());
            assertTrue(before.containsValue("RUNNING") && before.containsValue("PENDING"), "8 GPUs run 8 jobs and the rest wait: " + before.values());

            new ProcessBuilder("kill", "-9", String.valueOf(first.pid())).inheritIO().start().waitFor();
            assertEquals(137, first.waitFor(), "the process died of SIGKILL");

            // pooled connections died with the process
            http = newClient();
            Process second = start(port);
            try {
                awaitReady(port);
                assertEquals(before, states(port), "every job is back with its state");
            } finally {
                second.destroyForcibly().waitFor();
            }
        } finally {
            first.destroyForcibly().waitFor();
        }
    }

    @Test
    void aKillWhilePlanningLosesNoJobAndDoubleBooksNoGpu() throws Exception {
        int port = freePort();
        Process first = start(port);
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        AtomicBoolean submitting = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            awaitReady(port);
            send(port, "POST", "/api/v1/teams", "{\"name\":\"durable\",\"share\":0.5}", 201);
            // mixed sizes and a steady stream of arrivals keep the planner busy: each arrival asks for a plan over hundreds of jobs
            AtomicInteger next = new AtomicInteger();
            for (int t = 0; t < 4; t++) {
                clients.submit(() -> {
                    while (submitting.get()) {
                        int i = next.getAndIncrement();
                        String job = "{\"name\":\"busy-" + i + "\",\"team\":\"durable\",\"class\":\"TRAINING\",\"replicas\":" + (1 << (i % 3))
                                + ",\"perReplica\":{\"gpus\":1},\"durationEstimateSeconds\":" + (600 + i % 7 * 900) + "}";
                        try {
                            accepted.add(JSON.readTree(send(port, "POST", "/api/v1/jobs", job, 201)).get("id").asText());
                        } catch (Exception | AssertionError e) {
                            return null; // the process was killed under this request
                        }
                    }
                    return null;
                });
            }
            while (accepted.size() < 300) Thread.sleep(50);
            assertTrue(killWhilePlanning(first), "the planner was never caught computing or committing a plan in 100 thread dumps");
            submitting.set(false);
            assertEquals(137, first.waitFor(), "the process died of SIGKILL");

            http = newClient();
            Process second = start(port);
            try {
                awaitReady(port);
                JsonNode jobs = JSON.readTree(send(port, "GET", "/api/v1/jobs?limit=10000", null, 200));
                Set<String> stored = new HashSet<>();
                Map<String, String> gpuHolders = new HashMap<>();
                for (JsonNode j : jobs) {
                    stored.add(j.get("id").asText());
                    if (!"RUNNING".equals(j.get("state").asText())) continue;
                    Matcher m = Pattern.compile("([^\\[+]+)\\[(\\d+)(?:-(\\d+))?\\]").matcher(j.get("placement").asText());
                    while (m.find()) {
                        int from = Integer.parseInt(m.group(2));
                        int to = m.group(3) == null ? from : Integer.parseInt(m.group(3));
                        for (int g = from; g <= to; g++) {
                            String other = gpuHolders.put(m.group(1) + "/" + g, j.get("id").asText());
                            assertNull(other, "GPU " + m.group(1) + "/" + g + " is held by " + other + " and " + j.get("id").asText());
                        }
                    }
                }
                Set<String> lost = new HashSet<>(accepted);
                lost.removeAll(stored);
                assertTrue(lost.isEmpty(), lost.size() + " of " + accepted.size() + " accepted jobs are gone after the kill: " + lost);
                assertTrue(gpuHolders.size() <= 8, "8 GPUs, " + gpuHolders.size() + " held");
            } finally {
                second.destroyForcibly().waitFor();
            }
        } finally {
            submitting.set(false);
            clients.shutdownNow();
            first.destroyForcibly().waitFor();
        }
    }

    /**
     * Takes thread dumps until one shows the planner thread inside a plan (computing it or committing it), then SIGKILLs
     * at once: a plan over hundreds of jobs takes far longer than the step from the dump to the kill.
     */
    private static boolean killWhilePlanning(Process p) throws Exception {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        for (int attempt = 0; attempt < 100; attempt++) {
            Process dump = new ProcessBuilder(jcmd, String.valueOf(p.pid()), "Thread.print").redirectErrorStream(true).start();
            String threads = new String(dump.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            dump.waitFor();
            int planner = threads.indexOf("\"horizon-planner\"");
            int end = planner < 0 ? -1 : threads.indexOf("\n\n", planner);
            String stack = planner < 0 ? "" : threads.substring(planner, end < 0 ? threads.length() : end);
            if (stack.contains("Planner.planOnce")) {
                new ProcessBuilder("kill", "-9", String.valueOf(p.pid())).inheritIO().start().waitFor();
                System.out.println("SIGKILL sent right after this thread dump of the planner:\n"
                        + String.join("\n", stack.lines().limit(8).toList()));
                return true;
            }
        }
        return false;
    }

    private Process start(int port) throws IOException {
        Path log = dataDir.resolve("service-" + System.nanoTime() + ".log");
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + port, "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.management.port=" + managementPort,
                "-Dquarkus.management.host=127.0.0.1", "-Dhorizon.data-dir=" + dataDir.toAbsolutePath(),
                "-Dhorizon.nodes=8xH100-80GB", "-Dhorizon.bootstrap-admin-token=" + ADMIN, "-jar", "target/quarkus-app/quarkus-run.jar")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Job states once two reads a second apart agree: the planner has finished reacting to the burst. */
    private Map<String, String> settledStates(int port) throws Exception {
        Map<String, String> previous = states(port);
        while (true) {
            Thread.sleep(1000);
            Map<String, String> now = states(port);
            if (now.equals(previous)) return now;
            previous = now;
        }
    }

    private Map<String, String> states(int port) throws Exception {
        JsonNode jobs = JSON.readTree(send(port, "GET", "/api/v1/jobs?limit=10000", null, 200));
        Map<String, String> out = new TreeMap<>();
        jobs.forEach(j -> out.put(j.get("id").asText(), j.get("state").asText()));
        return out;
    }

    private void awaitReady(int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the service did not become ready within 60 s; see the logs in " + dataDir + ": "
                + String.join("\n", Files.readAllLines(Files.list(dataDir).filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow())));
    }

    private String send(int port, String method, String path, String body, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Authorization", "Bearer " + ADMIN)
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(expected, r.statusCode(), method + " " + path + ": " + r.body());
        return r.body();
    }

    private static HttpClient newClient() {
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    }

    private static int freePortUnchecked() {
        try {
            return freePort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
