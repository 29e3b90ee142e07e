package dev.horizon.api.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.PlannedDevice;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The REST client against a stand-in that answers as the control plane's /api/v1/jobs does. */
class RestSchedulerClientTest {
    private HttpServer server;
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private RestSchedulerClient client;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/jobs", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            calls.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " " + exchange.getRequestHeaders().getFirst("Authorization")
                    + (body.isEmpty() ? "" : " " + body));
            String path = exchange.getRequestURI().getPath();
            Map.Entry<Integer, String> answer = switch (exchange.getRequestMethod() + " " + path) {
                case "POST /api/v1/jobs" -> Map.entry(201, "{\"id\":\"j1\",\"state\":\"PENDING\"}");
                case "GET /api/v1/jobs/j1" -> Map.entry(200, "{\"id\":\"j1\",\"state\":\"RUNNING\",\"placement\":\"node-1[0-3]+node-2[0-7]\","
                        + "\"spec\":{\"perReplica\":{\"migProfile\":\"1g.10gb\"}},\"devices\":[{\"node\":\"node-1\",\"gpuIndex\":2,"
                        + "\"gpuUuid\":\"GPU-2\",\"migProfile\":\"1g.10gb\",\"migUuid\":\"MIG-7\",\"gpuMode\":\"dra\",\"newerField\":1}]}");
                case "GET /api/v1/jobs/new" -> Map.entry(200, "{\"id\":\"new\",\"state\":\"RUNNING\",\"placement\":\"node-3[0-7]\",\"leaderEpoch\":5}");
                case "GET /api/v1/jobs/old" -> Map.entry(200, "{\"id\":\"old\",\"state\":\"RUNNING\",\"placement\":\"node-4[0-7]\",\"leaderEpoch\":4}");
                case "GET /api/v1/jobs/j2" -> Map.entry(200, "{\"id\":\"j2\",\"state\":\"PENDING\",\"spec\":{\"perReplica\":{\"gpus\":1}}}");
                case "GET /api/v1/jobs/j1/explanation" -> Map.entry(200, "{\"state\":\"PENDING\",\"reason\":\"r\",\"plannedStart\":1800,"
                        + "\"rankedAheadByTeam\":{\"nlp\":2}}");
                case "DELETE /api/v1/jobs/j1" -> Map.entry(409, "{\"error\":\"already finished\"}");
                case "POST /api/v1/jobs/j1/outcome" -> Map.entry(200, "{}");
                default -> Map.entry(400, "{\"error\":\"bad\"}");
            };
            byte[] out = answer.getValue().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.getKey(), out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        server.start();
        client = new RestSchedulerClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "tok");
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void withholdsAPlacementFromALeaderOlderThanOneAlreadySeen() {
        assertEquals(List.of("node-4"), client.job("old").placement().nodes(), "epoch 4 is the newest seen so far");
        SchedulerJob current = client.job("new");
        assertEquals(5, current.leaderEpoch());
        assertEquals(List.of("node-3"), current.placement().nodes());
        SchedulerJob stale = client.job("old");
        assertEquals(SchedulerJob.State.RUNNING, stale.state());
        assertNull(stale.placement(), "after epoch 5, epoch 4's placement is not acted on");
    }

    @Test
    void speaksTheJobsApiWithTheBearerToken() {
        JobSpec spec = new JobSpec("a", "nlp", JobClass.TRAINING, null, 2, null, GpuShape.wholeGpus(1), true, null, null, null, null);
        assertEquals("j1", client.submit(spec));
        assertTrue(calls.get(0).startsWith("POST /api/v1/jobs Bearer tok {\"name\":\"a\",\"team\":\"nlp\""), calls.get(0));

        SchedulerJob running = client.job("j1");
        assertEquals(SchedulerJob.State.RUNNING, running.state());
        assertEquals(List.of("node-1", "node-2"), running.placement().nodes());
        assertEquals("1g.10gb", running.placement().migProfile());
        assertEquals(List.of(new PlannedDevice("node-1", 2, "GPU-2", "1g.10gb", "MIG-7", null, null, GpuMode.DRA)), running.placement().devices(),
                "the planned devices, a field this client does not know ignored");
        assertNull(client.job("j2").placement(), "a pending job has no placement");

        Explanation why = client.explanation("j1");
        assertEquals(1800L, why.plannedStart());
        assertEquals(Map.of("nlp", 2L), why.rankedAheadByTeam());

        client.cancel("j1");
        client.finish("j1", true);
        assertEquals("POST /api/v1/jobs/j1/outcome Bearer tok {\"state\":\"SUCCEEDED\"}", calls.get(calls.size() - 1));
        SchedulerException refused = assertThrows(SchedulerException.class, () -> client.job("unknown"));
        assertTrue(refused.getMessage().contains("answered 400"), refused.getMessage());
    }
}
