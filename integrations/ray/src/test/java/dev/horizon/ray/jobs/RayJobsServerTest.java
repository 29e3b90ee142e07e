package dev.horizon.ray.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSpec;
import dev.horizon.api.scheduler.Explanation;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.api.scheduler.SchedulerException;
import dev.horizon.api.scheduler.SchedulerRefused;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The endpoint on a loopback port, called as Ray's job SDK calls it, with a control plane the test drives. */
class RayJobsServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private FakeScheduler scheduler;
    private RayJobsServer server;

    @BeforeEach
    void start() throws IOException {
        scheduler = new FakeScheduler();
        server = new RayJobsServer(scheduler, "research", FractionalGpuPolicy.parse("time-slicing:81920"), Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> call(String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode ok(String method, String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> response = call(method, path, body);
        assertEquals(200, response.statusCode(), response.body());
        return JSON.readTree(response.body());
    }

    @Test
    void aSubmissionQueuesWaitsWithTheExplanationRunsAndIsStopped() throws Exception {
        assertEquals("4", ok("GET", "/api/version", null).path("version").asText());
        JsonNode submitted = ok("POST", "/api/jobs/", """
                {"entrypoint": "python train.py", "entrypoint_num_gpus": 2, "entrypoint_num_cpus": 4,
                 "entrypoint_resources": {"custom": 1}, "runtime_env": {"pip": ["torch"]},
                 "metadata": {"horizon.dev/team": "nlp", "owner": "ana"}, "submission_id": "raysubmit_abc"}""");
        assertEquals("{\"job_id\":\"raysubmit_abc\",\"submission_id\":\"raysubmit_abc\"}", submitted.toString());
        JobSpec spec = scheduler.submitted.get("job-1");
        assertEquals(List.of("raysubmit_abc", "nlp", JobClass.TRAINING, 1, 2), List.of(spec.name(), spec.team(), spec.jobClass(),
                spec.replicaCount(), spec.perReplica().gpus()));

        scheduler.explain(new Explanation("blocked", Instant.parse("2026-11-30T14:30:00Z").getEpochSecond(), Map.of("cv", 1L)));
        JsonNode pending = ok("GET", "/api/jobs/raysubmit_abc", null);
        assertEquals("PENDING", pending.path("status").asText());
        assertEquals("pending: team cv ranks ahead; planned start 14:30", pending.path("message").asText());
        scheduler.explain(new Explanation("blocked", Instant.parse("2026-11-30T14:30:00Z").getEpochSecond(), Map.of("cv", 1L),
                Instant.parse("2026-11-30T14:40:00Z").getEpochSecond(), Instant.parse("2026-11-30T15:20:00Z").getEpochSecond(),
                Instant.parse("2026-11-30T11:59:00Z").getEpochSecond(), false, List.of(), List.of()));
        assertEquals("pending: team cv ranks ahead; planned start 14:30 (P50 14:40, P90 15:20)",
                ok("GET", "/api/jobs/raysubmit_abc", null).path("message").asText(), "ray job status says the band too");
        assertEquals(List.of("job-1", "job-1"), scheduler.explanationsAsked, "asked without alternatives");
        assertEquals("python train.py", pending.path("entrypoint").asText());
        assertEquals("ana", pending.at("/metadata/owner").asText());

        scheduler.plan("job-1", null, "node-a");
        JsonNode running = ok("GET", "/api/jobs/raysubmit_abc", null);
        assertEquals("RUNNING", running.path("status").asText());
        assertEquals("planned by Horizon on node-a", running.path("message").asText());

        assertTrue(ok("POST", "/api/jobs/raysubmit_abc/stop", null).path("stopped").asBoolean());
        assertEquals(List.of("job-1"), scheduler.cancelled);
        assertEquals("STOPPED", ok("GET", "/api/jobs/raysubmit_abc", null).path("status").asText());
        assertFalse(ok("POST", "/api/jobs/raysubmit_abc/stop", null).path("stopped").asBoolean(), "a stopped job is not stopped twice");
        assertEquals(List.of("job-1"), scheduler.cancelled);
    }

    @Test
    void finishedJobsReportRaysTerminalStatuses() throws Exception {
        String first = ok("POST", "/api/jobs/", "{\"entrypoint\": \"a\", \"entrypoint_num_gpus\": 1}").path("submission_id").asText();
        String second = ok("POST", "/api/jobs/", "{\"entrypoint\": \"b\", \"entrypoint_num_gpus\": 1}").path("submission_id").asText();
        assertTrue(first.startsWith("raysubmit_") && !first.equals(second), first + " " + second);
        assertEquals("research", scheduler.submitted.get("job-1").team(), "without team metadata the endpoint's default team pays");
        scheduler.finish("job-1", true);
        scheduler.finish("job-2", false);
        assertEquals("SUCCEEDED", ok("GET", "/api/jobs/" + first, null).path("status").asText());
        assertEquals("FAILED", ok("GET", "/api/jobs/" + second, null).path("status").asText());
    }

    @Test
    void aFractionOfAGpuBecomesTheAdminsShare() throws Exception {
        ok("POST", "/api/jobs/", "{\"entrypoint\": \"serve run app:x\", \"entrypoint_num_gpus\": 0.5}");
        assertEquals(500, scheduler.submitted.get("job-1").perReplica().gpuMilli());
        assertEquals(40960, scheduler.submitted.get("job-1").perReplica().memoryMiB());
    }

    @Test
    void badInputIsRefusedNamingTheField() throws Exception {
        Map<String, String> refusals = Map.of(
                "{\"entrypoint_num_gpus\": 1}", "entrypoint:",
                "{\"entrypoint\": \"x\"}", "entrypoint_num_gpus:",
                "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": -1}", "entrypoint_num_gpus:",
                "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": 1, \"entrypoint_num_cpus\": \"four\"}", "entrypoint_num_cpus:",
                "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": 1, \"entrypoint_resources\": {\"GPU\": 1}}", "entrypoint_resources.GPU:",
                "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": 1, \"runtime_env\": \"pip\"}", "runtime_env:",
                "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": 1, \"metadata\": {\"n\": 1}}", "metadata.n:",
                "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": 1, \"gpus\": 1}", "gpus:",
                "not json", "body:");
        for (Map.Entry<String, String> r : refusals.entrySet()) {
            HttpResponse<String> response = call("POST", "/api/jobs/", r.getKey());
            assertEquals(400, response.statusCode(), r.getKey());
            assertTrue(JSON.readTree(response.body()).path("error").asText().startsWith(r.getValue()), r.getKey() + " -> " + response.body());
        }
        assertTrue(scheduler.submitted.isEmpty());
    }

    /**
     * A job the control plane refuses (here a team it lacks) is a 400 that says so: it was a 503 "did not answer",
     * which sent the user looking for an outage and Ray's client to try the same request again.
     */
    @Test
    void aJobTheControlPlaneRefusesIsABadRequestAndOneItCannotReachIsUnavailable() throws Exception {
        String body = "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": 1, \"metadata\": {\"horizon.dev/team\": \"nope\"}, \"submission_id\": \"s\"}";
        scheduler.submitFails = new SchedulerRefused("POST http://cp/api/v1/jobs", 422, "{\"error\":\"team: no team 'nope'\"}");
        HttpResponse<String> refused = call("POST", "/api/jobs/", body);
        assertEquals(400, refused.statusCode(), refused.body());
        assertEquals("the Horizon control plane refused it (422): {\"error\":\"team: no team 'nope'\"}", JSON.readTree(refused.body()).path("error").asText());
        scheduler.submitFails = new SchedulerException("POST http://cp/api/v1/jobs failed: Connection refused", null);
        HttpResponse<String> down = call("POST", "/api/jobs/", body);
        assertEquals(503, down.statusCode(), down.body());
        assertTrue(down.body().contains("did not answer"), down.body());
        scheduler.submitFails = null;
        ok("POST", "/api/jobs/", body);
    }

    @Test
    void aSubmissionIdIsUsedOnceAndUnknownJobsAreNotFound() throws Exception {
        String body = "{\"entrypoint\": \"x\", \"entrypoint_num_gpus\": 1, \"submission_id\": \"mine\"}";
        ok("POST", "/api/jobs/", body);
        HttpResponse<String> again = call("POST", "/api/jobs/", body);
        assertEquals(400, again.statusCode());
        assertTrue(again.body().contains("submission_id"), again.body());
        assertEquals(1, scheduler.submitted.size());
        assertEquals(404, call("GET", "/api/jobs/nobody", null).statusCode());
        assertEquals(404, call("POST", "/api/jobs/nobody/stop", null).statusCode());
    }
}
