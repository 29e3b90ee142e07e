package dev.horizon.kubeflow.extender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.JobClass;
import dev.horizon.api.scheduler.Explanation;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kit.manifest.TeamRule;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerExtenderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final FakeScheduler scheduler = new FakeScheduler();
    private final List<String> bound = new ArrayList<>();
    private final SchedulerExtender extender = new SchedulerExtender(scheduler, (ns, pod, uid, node) -> bound.add(ns + "/" + pod + "@" + node), Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC),
            TeamRule.defaults());

    /** ExtenderArgs as kube-scheduler sends them with nodeCacheCapable: true (Go field names, any case). */
    private static String args(String podMetadata, String limits) {
        return """
                {"Pod": {"metadata": %s, "spec": {"containers": [{"name": "nb", "resources": {"limits": %s}}]}},
                 "NodeNames": ["node-a", "node-b", "node-c"]}
                """.formatted(podMetadata, limits);
    }

    private static final String NOTEBOOK = "{\"name\": \"notebook\", \"namespace\": \"vision\", \"uid\": \"u1\"}";

    private static JsonNode json(String text) throws IOException {
        return JSON.readTree(text);
    }

    @Test
    void aBarePodsTeamIsReadByTheRuleEveryAdapterUses() throws IOException {
        String kaiNotebook = "{\"name\": \"notebook\", \"namespace\": \"vision\", \"uid\": \"u2\", \"Labels\": {\"kai.scheduler/queue\": \"research\"}}";
        extender.filter(args(kaiNotebook, "{\"nvidia.com/gpu\": \"1\"}"));
        assertEquals("research", scheduler.submitted.get("job-1").team(), "KAI's queue label, under Go's field spelling");
    }

    @Test
    void aBareGpuPodWaitsForItsPlanThenGoesOnlyToThePlannedNode() throws IOException {
        scheduler.explain(new Explanation("", Instant.parse("2026-11-30T14:30:00Z").getEpochSecond(), Map.of("nlp", 1L)));
        JsonNode waiting = json(extender.filter(args(NOTEBOOK, "{\"nvidia.com/gpu\": \"1\"}")));
        assertEquals(0, waiting.path("nodeNames").size(), "no node until Horizon plans it");
        assertEquals("Horizon: pending: team nlp ranks ahead; planned start 14:30", waiting.path("failedNodes").path("node-b").asText());
        assertEquals(1, scheduler.submitted.size());
        var job = scheduler.submitted.get("job-1");
        assertEquals("vision", job.team());
        assertEquals(JobClass.INTERACTIVE, job.jobClass());
        assertEquals(1, job.perReplica().gpus());

        scheduler.plan("job-1", null, "node-b");
        JsonNode planned = json(extender.filter(args(NOTEBOOK, "{\"nvidia.com/gpu\": \"1\"}")));
        assertEquals("[\"node-b\"]", planned.path("nodeNames").toString());
        assertEquals(1, scheduler.submitted.size(), "the same pod is submitted once");
        assertEquals("[{\"host\":\"node-a\",\"score\":0},{\"host\":\"node-b\",\"score\":10},{\"host\":\"node-c\",\"score\":0}]",
                extender.prioritize(args(NOTEBOOK, "{\"nvidia.com/gpu\": \"1\"}")));

        String wrongNode = extender.bind("{\"podname\": \"notebook\", \"PODNAMESPACE\": \"vision\", \"PodUID\": \"u1\", \"Node\": \"node-a\"}");
        assertTrue(json(wrongNode).path("error").asText().contains("has not planned pod vision/notebook onto node-a"), wrongNode);
        assertEquals("", json(extender.bind("{\"PodName\": \"notebook\", \"PodNamespace\": \"vision\", \"PodUID\": \"u1\", \"Node\": \"node-b\"}")).path("error").asText());
        assertEquals(List.of("vision/notebook@node-b"), bound);
    }

    @Test
    void podsOfTrainingJobsServedWorkloadsAndPodsWithoutGpusPass() throws IOException {
        String trainingPod = "{\"name\": \"llama-worker-0\", \"namespace\": \"ml\", \"labels\": {\"training.kubeflow.org/job-name\": \"llama\"}}";
        assertEquals(3, json(extender.filter(args(trainingPod, "{\"nvidia.com/gpu\": 8}"))).path("nodeNames").size());
        String ownedByJobSet = "{\"name\": \"t-node-0\", \"namespace\": \"ml\", \"ownerReferences\": [{\"kind\": \"JobSet\", \"name\": \"t\"}]}";
        assertEquals(3, json(extender.filter(args(ownedByJobSet, "{\"nvidia.com/gpu\": 8}"))).path("nodeNames").size());
        String ownedByJob = "{\"name\": \"eval-0-x7k2p\", \"namespace\": \"ml\", \"ownerReferences\": [{\"kind\": \"Job\", \"name\": \"eval\"}]}";
        assertEquals(3, json(extender.filter(args(ownedByJob, "{\"nvidia.com/gpu\": 2}"))).path("nodeNames").size(), "planned through its Job");
        assertEquals(3, json(extender.filter(args(NOTEBOOK, "{\"cpu\": 2}"))).path("nodeNames").size());
        String servedReplica = "{\"name\": \"chat-7d9f-x2\", \"namespace\": \"ml\", \"labels\": {\"horizon.dev/inference-service\": \"deployment-ml-chat\"}}";
        assertEquals(3, json(extender.filter(args(servedReplica, "{\"nvidia.com/gpu\": 2}"))).path("nodeNames").size(), "its GPUs are its service's");
        String kservePod = "{\"name\": \"qwen-predictor-0\", \"namespace\": \"ml\", \"labels\": {\"serving.kserve.io/inferenceservice\": \"qwen\"}}";
        assertEquals(3, json(extender.filter(args(kservePod, "{\"nvidia.com/gpu\": 1}"))).path("nodeNames").size());
        String releasedGatedPod = "{\"name\": \"probe\", \"namespace\": \"ml\", \"annotations\": {\"horizon.dev/job-id\": \"job-9\"}}";
        assertEquals(3, json(extender.filter(args(releasedGatedPod, "{\"nvidia.com/gpu\": 2}"))).path("nodeNames").size(), "planned as its own job");
        assertTrue(scheduler.submitted.isEmpty());
    }

    @Test
    void nodeObjectsComeBackFilteredWhenTheSchedulerSendsThem() throws IOException {
        String args = """
                {"pod": {"metadata": {"name": "nb", "namespace": "v", "uid": "u9"}, "spec": {"containers": [{"resources": {"limits": {"nvidia.com/mig-1g.10gb": 1}}}]}},
                 "nodes": {"items": [{"metadata": {"name": "node-a"}}, {"metadata": {"name": "node-c"}}]}}
                """;
        assertEquals(0, json(extender.filter(args)).path("nodes").path("items").size());
        assertEquals("1g.10gb", scheduler.submitted.get("job-1").perReplica().migProfile());
        scheduler.plan("job-1", "1g.10gb", "node-c");
        JsonNode result = json(extender.filter(args));
        assertEquals(1, result.path("nodes").path("items").size());
        assertEquals("node-c", result.at("/nodes/items/0/metadata/name").asText());
    }

    @Test
    void theServerAnswersTheVerbsAndRefusesBadJson() throws Exception {
        try (ExtenderServer server = new ExtenderServer(extender, new InetSocketAddress("127.0.0.1", 0))) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/filter"))
                    .POST(HttpRequest.BodyPublishers.ofString(args(NOTEBOOK, "{\"cpu\": 1}"))).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ok.statusCode());
            assertEquals(3, json(ok.body()).path("nodeNames").size());
            HttpResponse<String> bad = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/prioritize"))
                    .POST(HttpRequest.BodyPublishers.ofString("{not json")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(400, bad.statusCode());
            assertTrue(json(bad.body()).path("error").asText().startsWith("the body is not JSON"), bad.body());
        }
    }
}
