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
import java.util.Set;
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
            String query = exchange.getRequestURI().getQuery() == null ? "" : "?" + exchange.getRequestURI().getQuery();
            calls.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + query + " " + exchange.getRequestHeaders().getFirst("Authorization")
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
                case "GET /api/v1/jobs/j3/explanation" -> Map.entry(200, "{\"state\":\"PENDING\",\"rule\":\"planned-start\",\"reason\":\"r\","
                        + "\"plannedStart\":\"1970-01-01T00:30:00Z\",\"plannedStartAt\":\"1970-01-01T00:30:00Z\",\"startP50At\":\"1970-01-01T00:40:00Z\","
                        + "\"startP90At\":\"1970-01-01T01:30:00Z\",\"bandsAt\":\"1970-01-01T00:15:00Z\","
                        + "\"rankedAheadByTeam\":{},\"alternatives\":[{\"change\":\"ask for 4 GPUs instead of 8\",\"field\":\"gpus\","
                        + "\"plannedStartAt\":\"1970-01-01T00:20:00Z\",\"newerField\":true}],\"ahead\":[{\"team\":\"cv\",\"job\":\"j9\",\"service\":null,"
                        + "\"gpus\":8,\"reason\":\"priority 10 over 5\"},{\"team\":\"web\",\"job\":null,\"service\":\"chat\",\"gpus\":2,"
                        + "\"reason\":\"GPUs reserved for inference\"},{\"team\":\"cv\",\"job\":\"j8\",\"service\":null,\"gpus\":4,"
                        + "\"reason\":\"running until its estimated end\",\"untilAt\":\"1970-01-01T00:25:00Z\"}]}");
                case "GET /api/v1/jobs/j4/explanation" -> Map.entry(200, "{\"state\":\"PENDING\",\"rule\":\"no-room-in-horizon\",\"reason\":\"r\","
                        + "\"plannedStart\":null,\"plannedStartAt\":null,\"startP50At\":null,\"startP90At\":null,\"bandsAt\":900,"
                        + "\"queueAloneP50At\":\"1970-01-01T02:00:00Z\",\"queueAloneP90At\":\"1970-01-01T03:00:00Z\",\"alternatives\":null,\"ahead\":[]}");
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
    void readsTheBandWhoIsAheadAndTheAlternatives() {
        Explanation why = client.explanation("j3", true);
        assertEquals("GET /api/v1/jobs/j3/explanation Bearer tok", calls.get(0), "alternatives asked for: no query");
        assertEquals(List.of(1800L, 2400L, 5400L, 900L), List.of(why.plannedStart(), why.startP50At(), why.startP90At(), why.bandsAt()));
        assertEquals(List.of(new Explanation.Alternative("ask for 4 GPUs instead of 8", "gpus", 1200L)), why.alternatives(),
                "a field this client does not know ignored");
        assertEquals(List.of(new Explanation.Ahead("cv", "j9", null, 8, "priority 10 over 5", null),
                new Explanation.Ahead("web", null, "chat", 2, "GPUs reserved for inference", null),
                new Explanation.Ahead("cv", "j8", null, 4, "running until its estimated end", 1500L)), why.ahead(),
                "an older control plane's entries (no untilAt) read as null");
        assertEquals(false, why.beyondHorizon());

        Explanation far = client.explanation("j4", false);
        assertNull(far.plannedStart());
        assertTrue(far.beyondHorizon(), "the planner's rule for a job with no start within the horizon");
        assertEquals(List.of(), far.alternatives(), "alternatives not asked for come as null");
        assertEquals(List.of(7200L, 10800L), List.of(far.queueAloneP50At(), far.queueAloneP90At()), "when the queue alone would start it");
        assertNull(why.queueAloneP50At(), "absent where not told");
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

        Explanation why = client.explanation("j1", false);
        assertEquals(1800L, why.plannedStart());
        assertEquals(Map.of("nlp", 2L), why.rankedAheadByTeam());
        assertTrue(calls.get(calls.size() - 1).startsWith("GET /api/v1/jobs/j1/explanation?alternatives=false "), calls.get(calls.size() - 1));
        assertEquals("[null, null, null, []]", java.util.Arrays.asList(why.startP50At(), why.startP90At(), why.bandsAt(), why.ahead()).toString(),
                "a control plane older than the bands sends none");

        client.cancel("j1");
        client.finish("j1", true);
        assertEquals("POST /api/v1/jobs/j1/outcome Bearer tok {\"state\":\"SUCCEEDED\"}", calls.get(calls.size() - 1));
        SchedulerException refused = assertThrows(SchedulerException.class, () -> client.job("unknown"));
        assertTrue(refused.getMessage().contains("answered 400"), refused.getMessage());
    }

    @Test
    void theClustersGpusCarryTheNodesThePlanHoldsForAWideJob() {
        answer("/api/v1/nodes", "[{\"name\":\"node-1\",\"gpus\":[{\"index\":0,\"uuid\":\"GPU-a\"}]},{\"name\":\"node-2\",\"gpus\":[]}]");
        answer("/api/v1/plan", "{\"running\":[{\"jobId\":\"j1\",\"placement\":\"node-1[0-0]\",\"fill\":true,\"start\":\"1970-01-01T00:01:40Z\"}],"
                + "\"nodesHeldForWideJob\":[\"node-2\"]}");
        InferenceServices.ClusterGpus gpus = client.gpus();
        assertEquals(Set.of("node-2"), gpus.heldForWideJob());
        assertEquals(List.of(new InferenceServices.Running("j1", List.of(new InferenceServices.Gpu("node-1", 0, "GPU-a")), true, 100)), gpus.running());
    }

    private void answer(String path, String json) {
        server.createContext(path, exchange -> {
            byte[] out = json.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
    }

    @Test
    void aStoredPlacementReadsAsItsGpusWithTheUuidsTheNodesRegistered() {
        Map<String, String> uuids = Map.of("node-1/0", "GPU-a", "node-1/1", "GPU-b", "node-2/2", "GPU-c");
        assertEquals(List.of(new InferenceServices.Gpu("node-1", 0, "GPU-a"), new InferenceServices.Gpu("node-1", 1, "GPU-b"),
                new InferenceServices.Gpu("node-2", 2, "GPU-c"), new InferenceServices.Gpu("node-2", 3, null)),
                RestSchedulerClient.slices("node-1[0-1]+node-2[2-2:3g.40gb@4]+node-2[3-3:500m/20000MiB]", uuids),
                "whole GPUs, a MIG instance's and a share's GPU; one no node lists has no uuid");
        assertEquals(List.of(), RestSchedulerClient.slices("", uuids));
    }
}
