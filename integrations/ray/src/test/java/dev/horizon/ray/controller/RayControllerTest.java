package dev.horizon.ray.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.scheduler.Explanation;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kubernetes.dra.DraCluster;
import dev.horizon.ray.KubeRayFixtures;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.RayKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller against the fabric8 mock API server in CRUD mode, with KubeRay's own CRDs installed from
 * ../shared/fixtures/kuberay/crds (skipped, saying so, when they are absent) and a control plane the test drives.
 */
@EnableKubernetesMockClient(crud = true)
class RayControllerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock NOON_UTC = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);
    private static final String AFFINITY = "/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms";

    KubernetesClient client;
    private FakeScheduler scheduler;
    private RayController controller;

    @BeforeEach
    void setUp() throws IOException {
        for (String crd : List.of("ray.io_rayjobs.yaml", "ray.io_rayclusters.yaml")) {
            try (InputStream in = Files.newInputStream(KubeRayFixtures.kuberay().resolve("crds").resolve(crd))) {
                client.apiextensions().v1().customResourceDefinitions().resource(client.getKubernetesSerialization()
                        .unmarshal(in, CustomResourceDefinition.class)).create();
            }
        }
        scheduler = new FakeScheduler();
        controller = new RayController(client, scheduler, new KubeRayTranslator("default", FractionalGpuPolicy.parse("time-slicing:81920"), TeamRule.defaults()), NOON_UTC);
    }

    private static final String RAY_JOB = """
            apiVersion: ray.io/v1
            kind: RayJob
            metadata: {name: tune, namespace: ml}
            spec:
              entrypoint: python tune.py
              shutdownAfterJobFinishes: true
              rayClusterSpec:
                headGroupSpec:
                  rayStartParams: {}
                  template: {spec: {containers: [{name: ray-head, image: rayproject/ray}]}}
                workerGroupSpecs:
                  - groupName: gpu
                    replicas: 2
                    rayStartParams: {}
                    template:
                      spec:
                        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
                          {matchExpressions: [{key: gpu.type, operator: In, values: [h100]}]}]}}}
                        containers: [{name: ray-worker, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 4}}}]
            """;

    private Resource<GenericKubernetesResource> create(String yaml) throws IOException {
        GenericKubernetesResource resource = JSON.convertValue(new YAMLMapper().readTree(yaml), GenericKubernetesResource.class);
        RayKind kind = RayKind.of(resource.getApiVersion(), resource.getKind()).orElseThrow();
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(RayController.context(kind)).inNamespace("ml").resource(resource);
        handle.create();
        return handle;
    }

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }

    private static void assertPlannedCondition(JsonNode workload) {
        JsonNode condition = workload.at("/status/conditions/0");
        assertEquals(RayController.CONDITION + " True Planned", condition.path("type").asText() + " " + condition.path("status").asText() + " "
                + condition.path("reason").asText());
    }

    private List<String> eventsAbout(String name) {
        return client.v1().events().inNamespace("ml").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals(name))
                .map(e -> e.getReason() + ": " + e.getMessage()).toList();
    }

    /** What the translation read otherwise than written (num-gpus the pod's limit does not back, a clamped worker count) is said on the workload. */
    @Test
    void translationWarningsAreEventsOnTheWorkload() throws IOException {
        create(RAY_JOB.replace("name: tune,", "name: tune-warned,")
                .replace("headGroupSpec:\n      rayStartParams: {}", "headGroupSpec:\n      rayStartParams: {num-gpus: \"1\"}"));
        controller.reconcileAll();
        assertEquals(4, scheduler.submitted.get("job-1").perReplica().gpus(), "only the workers hold GPUs");
        List<String> warnings = eventsAbout("tune-warned").stream().filter(e -> e.startsWith("TranslationWarning: ")).toList();
        assertEquals(List.of("TranslationWarning: spec.rayClusterSpec.headGroupSpec.rayStartParams[num-gpus]: advertises 1 GPU to Ray but the pod's"
                + " nvidia.com/gpu limit is 0; Kubernetes gives the pod 0, so Horizon plans 0; Ray will place work on GPUs the pod does not have"), warnings);
    }

    @Test
    void inDraModeAGpuGroupIsReleasedWithAClaimOnExactlyItsPlannedGpus() throws IOException {
        DraCluster.node(client, "node-a", Map.of()).gpus(8).publish();
        DraCluster.node(client, "node-b", Map.of()).gpus(8).publish();
        Resource<GenericKubernetesResource> job = create(RAY_JOB);
        controller.reconcileAll();
        List<PlannedDevice> devices = new ArrayList<>();
        for (String node : List.of("node-a", "node-b")) {
            for (int i = 4; i < 8; i++) devices.add(PlannedDevice.wholeGpu(node, i, DraCluster.uuid(node, i), GpuMode.DRA));
        }
        scheduler.plan("job-1", new PlannedPlacement(List.of("node-a", "node-b"), null, devices));
        controller.reconcileAll();

        JsonNode worker = tree(job).at("/spec/rayClusterSpec/workerGroupSpecs/0/template");
        assertFalse(tree(job).at("/spec/suspend").asBoolean());
        String templateName = worker.at("/spec/resourceClaims/0/resourceClaimTemplateName").asText();
        ResourceClaimTemplate claim = client.resources(ResourceClaimTemplate.class).inNamespace("ml").withName(templateName).get();
        String cel = claim.getSpec().getSpec().getDevices().getRequests().get(0).getExactly().getSelectors().get(0).getCel().getExpression();
        for (PlannedDevice d : devices) assertTrue(cel.contains("\"" + d.gpuUuid() + "\""), cel);
        assertFalse(cel.contains(DraCluster.uuid("node-a", 0)), "GPUs outside the plan are not selectable: " + cel);
        assertEquals("RayJob", claim.getMetadata().getOwnerReferences().get(0).getKind());
        assertFalse(worker.at("/spec/containers/0/resources/limits").has("nvidia.com/gpu"));
        assertEquals("horizon-gpus", worker.at("/spec/containers/0/resources/claims/0/name").asText());
    }

    @Test
    void aRayJobWaitsSuspendedRunsWherePlannedIsSuspendedOnPreemptionAndCancelledOnDelete() throws IOException {
        Resource<GenericKubernetesResource> job = create(RAY_JOB);

        controller.reconcileAll();
        JsonNode held = tree(job);
        assertTrue(held.at("/spec/suspend").asBoolean(), "held suspended until planned");
        assertEquals("{\"tune-gpu\":\"job-1\"}", held.at("/metadata/annotations").path(RayController.JOB_IDS).asText());
        assertEquals(2, scheduler.submitted.get("job-1").replicaCount());
        assertEquals(4, scheduler.submitted.get("job-1").perReplica().gpus());
        assertEquals("ml", scheduler.submitted.get("job-1").team());

        scheduler.explain(new Explanation("blocked", Instant.parse("2026-11-30T14:30:00Z").getEpochSecond(), Map.of("nlp", 3L)));
        controller.reconcileAll();
        controller.reconcileAll();
        String sentence = "pending: team nlp ranks ahead; planned start 14:30";
        assertEquals(sentence, tree(job).at("/metadata/annotations").path(RayController.EXPLANATION).asText());
        assertEquals(1, eventsAbout("tune").stream().filter(e -> e.equals("Pending: " + sentence)).count(), eventsAbout("tune").toString());

        scheduler.plan("job-1", null, "node-a", "node-b");
        controller.reconcileAll();
        JsonNode running = tree(job);
        assertFalse(running.at("/spec/suspend").asBoolean(), "released once planned");
        assertEquals("[{\"key\":\"gpu.type\",\"operator\":\"In\",\"values\":[\"h100\"]},{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"node-a\",\"node-b\"]}]",
                running.at("/spec/rayClusterSpec/workerGroupSpecs/0" + AFFINITY + "/0/matchExpressions").toString(), "pinned, the user's constraint kept");
        assertTrue(running.at("/spec/rayClusterSpec/headGroupSpec/template/spec/affinity").isMissingNode(), "the CPU-only head is not Horizon's to place");
        assertTrue(eventsAbout("tune").contains("Planned: planned by Horizon: released with gpu on node-a,node-b (the device plugin's nvidia.com/gpu)"), eventsAbout("tune").toString());

        scheduler.preempt("job-1");
        controller.reconcileAll();
        JsonNode preempted = tree(job);
        assertTrue(preempted.at("/spec/suspend").asBoolean(), "suspended again on preemption");
        assertTrue(eventsAbout("tune").contains("Preempted: preempted by Horizon: suspended until it is planned again"), eventsAbout("tune").toString());

        scheduler.plan("job-1", null, "node-c");
        controller.reconcileAll();
        assertEquals("[\"node-c\"]", tree(job).at("/spec/rayClusterSpec/workerGroupSpecs/0" + AFFINITY + "/0/matchExpressions/1/values").toString(),
                "a new plan replaces the old nodes");

        job.delete();
        controller.reconcileAll();
        assertEquals(List.of("job-1"), scheduler.cancelled, "deleting the RayJob cancels its scheduler job");
    }

    @Test
    void aRayClusterIsReleasedOnlyWhenEveryGpuGroupIsPlannedAndSaysSoInItsCondition() throws IOException {
        Resource<GenericKubernetesResource> cluster = create("""
                apiVersion: ray.io/v1
                kind: RayCluster
                metadata: {name: serve, namespace: ml}
                spec:
                  headGroupSpec:
                    rayStartParams: {}
                    template: {spec: {containers: [{name: ray-head, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 1}}}]}}
                  workerGroupSpecs:
                    - groupName: big
                      replicas: 1
                      rayStartParams: {}
                      template: {spec: {containers: [{name: w, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 8}}}]}}
                """);
        controller.reconcileAll();
        assertTrue(tree(cluster).at("/spec/suspend").asBoolean());
        assertEquals(List.of("serve-head", "serve-big"), scheduler.submitted.values().stream().map(s -> s.name()).toList());

        scheduler.explain(new Explanation("blocked", Instant.parse("2026-11-30T14:30:00Z").getEpochSecond(), Map.of("nlp", 3L),
                Instant.parse("2026-11-30T14:40:00Z").getEpochSecond(), Instant.parse("2026-12-01T01:20:00Z").getEpochSecond(),
                Instant.parse("2026-11-30T11:59:00Z").getEpochSecond(), false, List.of(), List.of()));
        controller.reconcileAll();
        JsonNode waiting = tree(cluster).at("/status/conditions/0");
        assertEquals(RayController.CONDITION + " False Pending: pending: team nlp ranks ahead; planned start 14:30 (P50 14:40, P90 Tue 1 Dec 01:20)",
                waiting.path("type").asText() + " " + waiting.path("status").asText() + " " + waiting.path("reason").asText() + ": "
                        + waiting.path("message").asText(), "the waiting cluster's condition carries its planned start and band");
        scheduler.explain(new Explanation("blocked", Instant.parse("2026-11-30T14:30:00Z").getEpochSecond(), Map.of("nlp", 3L),
                Instant.parse("2026-11-30T14:50:00Z").getEpochSecond(), Instant.parse("2026-12-01T02:00:00Z").getEpochSecond(),
                Instant.parse("2026-11-30T12:00:00Z").getEpochSecond(), false, List.of(), List.of()));
        controller.reconcileAll();
        assertEquals("pending: team nlp ranks ahead; planned start 14:30 (P50 14:50, P90 Tue 1 Dec 02:00)",
                tree(cluster).at("/status/conditions/0/message").asText(), "the condition follows the band");
        assertEquals(1, eventsAbout("serve").stream().filter(e -> e.startsWith("Pending: pending: team nlp ranks ahead; planned start 14:30")).count(),
                "a band that moved alone raises no new event: " + eventsAbout("serve"));
        assertTrue(scheduler.explanationsAsked.stream().noneMatch(a -> a.endsWith("with alternatives")), scheduler.explanationsAsked.toString());

        scheduler.plan("job-1", null, "node-a");
        controller.reconcileAll();
        assertTrue(tree(cluster).at("/spec/suspend").asBoolean(), "the head alone is not a cluster Ray can use");

        scheduler.plan("job-2", null, "node-b");
        controller.reconcileAll();
        JsonNode running = tree(cluster);
        assertFalse(running.at("/spec/suspend").asBoolean());
        assertEquals("node-a", running.at("/spec/headGroupSpec" + AFFINITY + "/0/matchExpressions/0/values/0").asText());
        assertEquals("node-b", running.at("/spec/workerGroupSpecs/0" + AFFINITY + "/0/matchExpressions/0/values/0").asText());
        assertPlannedCondition(running);
    }

    @Test
    void anUnplannableRayJobSaysWhyOnceAndIsNotSubmitted() throws IOException {
        Resource<GenericKubernetesResource> job = create(RAY_JOB.replace("shutdownAfterJobFinishes: true", "entrypointNumGpus: 8"));
        controller.reconcileAll();
        controller.reconcileAll();
        assertTrue(tree(job).at("/metadata/annotations").path(RayController.EXPLANATION).asText().startsWith("spec.entrypointNumGpus:"));
        assertEquals(1, eventsAbout("tune").size(), "said once: " + eventsAbout("tune"));
        assertTrue(scheduler.submitted.isEmpty());
    }

    @Test
    void aRayJobWithoutGpusIsLeftToKubeRay() throws IOException {
        Resource<GenericKubernetesResource> job = create(RAY_JOB.replace("nvidia.com/gpu: 4", "cpu: 4"));
        controller.reconcileAll();
        assertTrue(tree(job).at("/spec/suspend").isMissingNode());
        assertTrue(scheduler.submitted.isEmpty());
    }

    @Test
    void aFinishedRayJobGivesItsGpusBack() throws IOException {
        Resource<GenericKubernetesResource> job = create(RAY_JOB);
        controller.reconcileAll();
        scheduler.plan("job-1", null, "node-a");
        controller.reconcileAll();
        GenericKubernetesResource done = job.get();
        done.setAdditionalProperty("status", Map.of("jobDeploymentStatus", "Complete", "jobStatus", "SUCCEEDED"));
        client.resource(done).updateStatus();
        controller.reconcileAll();
        assertEquals(Map.of("job-1", true), scheduler.finished);
    }
}
