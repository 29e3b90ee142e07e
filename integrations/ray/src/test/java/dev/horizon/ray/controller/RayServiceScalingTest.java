package dev.horizon.ray.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.scheduler.FakeInferenceServices;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.ray.KubeRayFixtures;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.RayKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A RayService runs as a Horizon inference service, not a batch job: against the fabric8 mock API server with KubeRay's
 * own CRDs and samples from ../shared/fixtures/kuberay (skipped, saying so, when absent), the controller and the scaler
 * pass over it as the adapter's process does.
 */
@EnableKubernetesMockClient(crud = true)
class RayServiceScalingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock NOON_UTC = Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"), ZoneOffset.UTC);
    private static final String WORKERS = "/spec/rayClusterConfig/workerGroupSpecs/0";
    private static final String HOSTNAMES = "/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"
            + "/matchExpressions/0/values";

    KubernetesClient client;
    private Path kuberay;
    private FakeScheduler scheduler;
    private FakeInferenceServices services;
    private RayController controller;
    private InferenceScaler scaler;

    @BeforeEach
    void setUp() throws IOException {
        kuberay = KubeRayFixtures.kuberay();
        for (String crd : List.of("ray.io_rayclusters.yaml", "ray.io_rayservices.yaml")) {
            try (InputStream in = Files.newInputStream(kuberay.resolve("crds").resolve(crd))) {
                client.apiextensions().v1().customResourceDefinitions().resource(client.getKubernetesSerialization()
                        .unmarshal(in, CustomResourceDefinition.class)).create();
            }
        }
        scheduler = new FakeScheduler();
        services = new FakeInferenceServices();
        KubeRayTranslator translator = new KubeRayTranslator("default", FractionalGpuPolicy.parse("time-slicing:81920"), TeamRule.defaults());
        controller = new RayController(client, scheduler, translator, NOON_UTC);
        scaler = RayController.inferenceScaler(client, services, translator, NOON_UTC);
    }

    @Test
    void aRayServiceIsSizedFromTheForecastWithinItsGroupsBoundsAndIsNeverSubmittedAsABatchJob() throws IOException {
        Resource<GenericKubernetesResource> service = create(RayKind.RAY_SERVICE, sample("ray-service.stable-diffusion.yaml"));
        // the RayCluster KubeRay creates for it: planned through the RayService, never held on its own
        Resource<GenericKubernetesResource> cluster = create(RayKind.RAY_CLUSTER, """
                apiVersion: ray.io/v1
                kind: RayCluster
                metadata:
                  name: stable-diffusion-raycluster-x7k2p
                  ownerReferences: [{apiVersion: ray.io/v1, kind: RayService, name: stable-diffusion, uid: u1, controller: true}]
                spec:
                  headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: ray-head, image: rayproject/ray}]}}}
                  workerGroupSpecs:
                    - {groupName: gpu-group, replicas: 1, rayStartParams: {},
                       template: {spec: {containers: [{name: w, image: rayproject/ray, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
                """);
        pass();
        assertTrue(scheduler.submitted.isEmpty(), "no batch job for the RayService or its RayCluster: " + scheduler.submitted);
        assertTrue(tree(service).at("/spec/suspend").isMissingNode(), "a service is never held suspended");
        assertTrue(tree(cluster).at("/spec/suspend").isMissingNode());
        String name = "rayservice-ml-stable-diffusion";
        assertEquals("ml", services.teams.get(name), "declared as an inference service for its team");
        JsonNode first = tree(service);
        assertEquals("10", first.at("/metadata/annotations/horizon.dev~1max-replicas").asText(), "the group's maxReplicas is Horizon's upper bound");
        assertEquals("1", first.at("/metadata/annotations/horizon.dev~1min-replicas").asText(), "and its minReplicas the lower");
        assertEquals(List.of("a0"), services.held.get(name), "one worker's GPU held");
        assertEquals("[\"node-a\"]", first.at(WORKERS + HOSTNAMES).toString(), "the GPU workers pinned to the held GPU's node");
        assertEquals(name, first.at(WORKERS + "/template/metadata/labels/horizon.dev~1inference-service").asText());

        services.forecast.put(name, 4.5);
        pass();
        JsonNode group = tree(service).at(WORKERS);
        assertEquals(List.of(5, 5, 5), List.of(group.path("replicas").asInt(), group.path("minReplicas").asInt(), group.path("maxReplicas").asInt()),
                "4.5 GPUs forecast: five 1-GPU workers, written so neither KubeRay's clamp nor its autoscaler moves them");
        assertEquals(5, services.held.get(name).size());
        services.forecast.put(name, 40.0);
        pass();
        assertEquals(10, tree(service).at(WORKERS + "/replicas").asInt(), "never beyond the recorded maxReplicas");
        assertTrue(scheduler.submitted.isEmpty());

        service.delete();
        pass();
        assertFalse(services.teams.containsKey(name), "a deleted RayService's inference service is removed");
    }

    @Test
    void aHeadWithGpusIsSaidOnTheRayServiceNamingTheField() throws IOException {
        ObjectNode deepseek = sample("ray-service.deepseek.yaml");
        ObjectNode head = (ObjectNode) deepseek.at("/spec/rayClusterConfig/headGroupSpec/template/spec/containers/0/resources");
        head.putObject("limits").put("nvidia.com/gpu", "1");
        Resource<GenericKubernetesResource> service = create(RayKind.RAY_SERVICE, deepseek);
        pass();
        assertTrue(tree(service).at("/metadata/annotations/horizon.dev~1explanation").asText()
                .startsWith("spec.rayClusterConfig.headGroupSpec: the head asks for GPUs"), tree(service).at("/metadata").toString());
        assertTrue(services.held.isEmpty());
        assertTrue(scheduler.submitted.isEmpty());
    }

    private void pass() {
        controller.reconcileAll();
        scaler.reconcileAll();
    }

    private ObjectNode sample(String file) throws IOException {
        ObjectNode sample = (ObjectNode) ManifestFile.parse(Files.readString(kuberay.resolve("samples").resolve(file))).get(0);
        ((ObjectNode) sample.path("metadata")).put("namespace", "ml");
        return sample;
    }

    private Resource<GenericKubernetesResource> create(RayKind kind, String yaml) {
        return create(kind, (ObjectNode) ManifestFile.parse(yaml).get(0));
    }

    private Resource<GenericKubernetesResource> create(RayKind kind, ObjectNode manifest) {
        GenericKubernetesResource resource = JSON.convertValue(manifest, GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(RayController.context(kind)).inNamespace("ml").resource(resource);
        handle.create();
        return handle;
    }

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }
}
