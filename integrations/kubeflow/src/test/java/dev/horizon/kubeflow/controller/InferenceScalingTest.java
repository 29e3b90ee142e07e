package dev.horizon.kubeflow.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.scheduler.FakeInferenceServices;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kubeflow.serving.ServingKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The serving kinds run as inference services against the fabric8 mock API server and a control plane the test plays:
 * declared once, sized from the forecast within their bounds, written as a replica count or an HPA's bounds, their GPUs
 * held and their pods pinned to those GPUs' nodes, and removed when deleted.
 */
@EnableKubernetesMockClient(crud = true)
class InferenceScalingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOSTNAMES = "/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values";
    private static final String DEPLOYMENT = """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: llama, namespace: ml, labels: {horizon.dev/inference: "true"}ANNOTATIONS}
            spec:
              replicas: 4
              selector: {matchLabels: {app: llama}}
              template:
                metadata: {labels: {app: llama}}
                spec: {containers: [{name: vllm, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}
            """;

    KubernetesClient client;
    private FakeInferenceServices controlPlane;
    private InferenceScaler scaler;

    @BeforeEach
    void setUp() {
        controlPlane = new FakeInferenceServices();
        scaler = KubeflowController.inferenceScaler(client, controlPlane, TranslationOptions.defaults(), Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"),
                ZoneOffset.UTC));
    }

    @Test
    void aDeploymentMarkedAsInferenceIsSizedFromTheForecastWithinItsBoundsAndItsServiceGoesWithIt() {
        Resource<GenericKubernetesResource> deployment = create(ServingKind.DEPLOYMENT.context(), DEPLOYMENT.replace("ANNOTATIONS", ""));
        Resource<GenericKubernetesResource> unmarked = create(ServingKind.DEPLOYMENT.context(), DEPLOYMENT.replace("ANNOTATIONS", "")
                .replace("name: llama, namespace: ml, labels: {horizon.dev/inference: \"true\"}", "name: render, namespace: ml"));
        scaler.reconcileAll();
        assertTrue(tree(unmarked).at("/metadata/annotations").isMissingNode(), "a Deployment not marked as inference is not Horizon's: nothing written");
        String name = "deployment-ml-llama";
        assertEquals("ml", controlPlane.teams.get(name), "declared for the team its translation names");
        assertEquals(List.of(name), List.copyOf(controlPlane.teams.keySet()));
        JsonNode first = tree(deployment);
        assertEquals(1, first.at("/spec/replicas").asInt(), "no demand yet: the fewest replicas, 1 by default");
        assertEquals("4", first.at("/metadata/annotations/horizon.dev~1max-replicas").asText(), "the written count becomes the visible upper bound");
        assertEquals(List.of("a0", "a1"), controlPlane.held.get(name), "one replica's two GPUs are held");
        assertEquals("[\"node-a\"]", first.at("/spec/template/spec" + HOSTNAMES).toString(), "its pods pinned to the held GPUs' node");
        assertEquals(name, first.at("/spec/template/metadata/labels/horizon.dev~1inference-service").asText(), "its pods say whose GPUs they use");

        controlPlane.forecast.put(name, 5.0);
        scaler.reconcileAll();
        assertEquals(3, tree(deployment).at("/spec/replicas").asInt(), "5 GPUs forecast: three 2-GPU replicas");
        assertEquals(6, controlPlane.held.get(name).size());
        String version = tree(deployment).at("/metadata/resourceVersion").asText();
        scaler.reconcileAll();
        assertEquals(version, tree(deployment).at("/metadata/resourceVersion").asText(), "a pass that changes nothing writes nothing");
        controlPlane.forecast.put(name, 40.0);
        scaler.reconcileAll();
        assertEquals(4, tree(deployment).at("/spec/replicas").asInt(), "never beyond horizon.dev/max-replicas");

        Resource<GenericKubernetesResource> owned = create(ServingKind.DEPLOYMENT.context(), DEPLOYMENT.replace("name: llama,", "name: qwen-predictor,")
                .replace("ANNOTATIONS", ", ownerReferences: [{apiVersion: serving.kserve.io/v1beta1, kind: InferenceService, name: qwen, uid: u1, controller: true}]"));
        scaler.reconcileAll();
        assertFalse(controlPlane.teams.containsKey("deployment-ml-qwen-predictor"), "KServe's Deployment is sized through its InferenceService");
        assertEquals(4, tree(owned).at("/spec/replicas").asInt());

        deployment.delete();
        scaler.reconcileAll();
        assertFalse(controlPlane.teams.containsKey(name), "a deleted Deployment's service is removed, so its GPUs go back");
    }

    /**
     * A node the plan holds for a waiting wide job is the last a Deployment's replicas take and the first they leave: a
     * replica that stayed there kept a 64-GPU job waiting for good on wide-gangs (docs/bench.md, stop 68).
     */
    @Test
    void replicasLeaveANodeHeldForAWideJobFirstAndComeBackToItLast() {
        Resource<GenericKubernetesResource> deployment = create(ServingKind.DEPLOYMENT.context(),
                DEPLOYMENT.replace("ANNOTATIONS", ", annotations: {horizon.dev/max-replicas: \"6\"}"));
        String name = "deployment-ml-llama";
        controlPlane.forecast.put(name, 12.0);
        scaler.reconcileAll();
        assertEquals(List.of("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0", "b1", "b2", "b3"), controlPlane.held.get(name));

        controlPlane.heldForWideJob = Set.of("node-a");
        controlPlane.forecast.put(name, 4.0);
        scaler.reconcileAll();
        assertEquals(List.of("b0", "b1", "b2", "b3"), controlPlane.held.get(name), "shrinking, the replicas on the held node go first");
        assertEquals("[\"node-b\"]", tree(deployment).at("/spec/template/spec" + HOSTNAMES).toString(), "its pods pinned off the held node");

        controlPlane.forecast.put(name, 10.0);
        scaler.reconcileAll();
        assertEquals(List.of("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "a0", "a1"), controlPlane.held.get(name),
                "growing, it fills the free node first and takes the held node's GPUs only when nothing else is free");
    }

    @Test
    void byHpaHorizonWritesTheAutoscalersBoundsAndLeavesTheReplicaCountToIt() {
        Resource<GenericKubernetesResource> deployment = create(ServingKind.DEPLOYMENT.context(),
                DEPLOYMENT.replace("ANNOTATIONS", ", annotations: {horizon.dev/scale-by: hpa, horizon.dev/max-replicas: \"8\"}"));
        Resource<GenericKubernetesResource> hpa = create(new ResourceDefinitionContext.Builder().withGroup("autoscaling").withVersion("v2")
                .withKind("HorizontalPodAutoscaler").withPlural("horizontalpodautoscalers").withNamespaced(true).build(), """
                apiVersion: autoscaling/v2
                kind: HorizontalPodAutoscaler
                metadata: {name: llama, namespace: ml}
                spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: llama}, minReplicas: 1, maxReplicas: 2}
                """);
        controlPlane.forecast.put("deployment-ml-llama", 6.0);
        scaler.reconcileAll();
        JsonNode bounds = tree(hpa).path("spec");
        assertEquals(3, bounds.path("minReplicas").asInt(), "the forecast's replicas are the autoscaler's floor");
        assertEquals(3, bounds.path("maxReplicas").asInt(), "its maximum raised to the floor");
        assertEquals(4, tree(deployment).at("/spec/replicas").asInt(), "the replica count is the autoscaler's to write");
    }

    @Test
    void aLeaderWorkerSetGroupIsOneReplicaHeldWholeAcrossNodes() {
        ResourceDefinitionContext lws = ServingKind.LEADER_WORKER_SET.context();
        MockCluster.installCrd(client, lws);
        Resource<GenericKubernetesResource> set = create(lws, """
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: deepseek, namespace: ml}
                spec:
                  replicas: 2
                  leaderWorkerTemplate:
                    size: 2
                    workerTemplate: {spec: {containers: [{name: vllm, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]}}
                """);
        controlPlane.forecast.put("leaderworkerset-ml-deepseek", 9.0);
        scaler.reconcileAll();
        JsonNode sized = tree(set);
        assertEquals(1, sized.at("/spec/replicas").asInt(), "9 GPUs forecast: one group of 16 GPUs");
        assertEquals(16, controlPlane.held.get("leaderworkerset-ml-deepseek").size(), "a group of two 8-GPU pods holds both nodes whole");
        assertEquals("[\"node-a\",\"node-b\"]", sized.at("/spec/leaderWorkerTemplate/workerTemplate/spec" + HOSTNAMES).toString());

        set.delete();
        scaler.reconcileAll();
        assertFalse(controlPlane.held.containsKey("leaderworkerset-ml-deepseek"), "its GPUs given back");
        controlPlane.domains = Map.of("node-a", "rack-1", "node-b", "rack-2");
        Resource<GenericKubernetesResource> exclusive = create(lws, """
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: kimi, namespace: ml, annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: nvidia.com/gpu.clique}}
                spec:
                  replicas: 1
                  leaderWorkerTemplate:
                    size: 2
                    workerTemplate: {spec: {containers: [{name: vllm, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]}}
                """);
        scaler.reconcileAll();
        assertEquals(List.of(), controlPlane.held.getOrDefault("leaderworkerset-ml-kimi", List.of()), "two 8-GPU pods in one NVLink domain: none has room");
        assertTrue(tree(exclusive).at("/metadata/annotations/horizon.dev~1explanation").asText().startsWith("16 of its 16 GPUs have no node with room"));
    }

    @Test
    void anLlmInferenceServiceIsSizedFromTheForecastAsItsReplicasOrItsScalingBounds() {
        ResourceDefinitionContext llm = ServingKind.LLM_INFERENCE_SERVICE.context();
        MockCluster.installCrd(client, llm);
        String qwen = """
                apiVersion: serving.kserve.io/v1alpha1
                kind: LLMInferenceService
                metadata: {name: qwen, namespace: ml}
                spec:
                  model: {uri: "hf://Qwen/Qwen2.5-7B-Instruct", name: Qwen/Qwen2.5-7B-Instruct}
                  SIZE
                  router: {route: {}, gateway: {}, scheduler: {}}
                  template:
                    containers: [{name: main, image: vllm, resources: {limits: {nvidia.com/gpu: "2"}}}]
                """;
        Resource<GenericKubernetesResource> fixed = create(llm, qwen.replace("SIZE", "replicas: 3"));
        scaler.reconcileAll();
        String name = "llminferenceservice-ml-qwen";
        JsonNode first = tree(fixed);
        assertEquals("ml", controlPlane.teams.get(name));
        assertEquals(1, first.at("/spec/replicas").asInt(), "no demand yet: the fewest replicas");
        assertEquals("3", first.at("/metadata/annotations/horizon.dev~1max-replicas").asText());
        assertEquals(List.of("a0", "a1"), controlPlane.held.get(name));
        assertEquals("[\"node-a\"]", first.at("/spec/template" + HOSTNAMES).toString(), "its pods pinned to the held GPUs' node");
        assertEquals(name, first.at("/spec/labels/horizon.dev~1inference-service").asText(), "KServe puts spec.labels on its pods");
        controlPlane.forecast.put(name, 5.0);
        scaler.reconcileAll();
        assertEquals(3, tree(fixed).at("/spec/replicas").asInt(), "5 GPUs forecast: three 2-GPU replicas");

        Resource<GenericKubernetesResource> scaled = create(llm, qwen.replace("name: qwen,", "name: qwen-auto,")
                .replace("SIZE", "scaling: {minReplicas: 1, maxReplicas: 4}"));
        controlPlane.forecast.put("llminferenceservice-ml-qwen-auto", 3.0);
        scaler.reconcileAll();
        JsonNode bounds = tree(scaled).at("/spec");
        assertEquals(List.of(2, 2), List.of(bounds.at("/scaling/minReplicas").asInt(), bounds.at("/scaling/maxReplicas").asInt()),
                "under KServe's autoscaler both bounds are the sized count");
        assertTrue(bounds.path("replicas").isMissingNode(), "KServe refuses replicas beside scaling");

        Resource<GenericKubernetesResource> multiNode = create(llm, qwen.replace("name: qwen,", "name: qwen-mn,").replace("SIZE", "worker: {containers: []}"));
        scaler.reconcileAll();
        assertTrue(tree(multiNode).at("/metadata/annotations/horizon.dev~1explanation").asText().startsWith("spec.worker: a multi-node"));
        assertFalse(controlPlane.teams.containsKey("llminferenceservice-ml-qwen-mn"));
    }

    @Test
    void aBadBoundIsSaidOnTheWorkloadNamingTheAnnotation() {
        Resource<GenericKubernetesResource> deployment = create(ServingKind.DEPLOYMENT.context(),
                DEPLOYMENT.replace("ANNOTATIONS", ", annotations: {horizon.dev/min-replicas: \"3\", horizon.dev/max-replicas: \"2\"}"));
        scaler.reconcileAll();
        JsonNode refused = tree(deployment);
        assertTrue(refused.at("/metadata/annotations/horizon.dev~1explanation").asText().startsWith("annotation horizon.dev/max-replicas (2) is below"),
                refused.at("/metadata/annotations").toString());
        assertEquals(4, refused.at("/spec/replicas").asInt(), "left as written");
        assertTrue(controlPlane.teams.isEmpty(), "not declared");
    }

    @Test
    void aTeamTheControlPlaneLacksIsSaidOnTheWorkload() {
        controlPlane.refuse = true;
        Resource<GenericKubernetesResource> deployment = create(ServingKind.DEPLOYMENT.context(), DEPLOYMENT.replace("ANNOTATIONS", ""));
        scaler.reconcileAll();
        assertTrue(tree(deployment).at("/metadata/annotations/horizon.dev~1explanation").asText()
                .startsWith("the control plane refused inference service deployment-ml-llama for team ml: "), tree(deployment).toString());
        controlPlane.refuse = false;
        scaler.reconcileAll();
        JsonNode sized = tree(deployment);
        assertTrue(sized.at("/metadata/annotations/horizon.dev~1explanation").isMissingNode(), "said no more once it runs as asked");
        assertEquals(1, sized.at("/spec/replicas").asInt());
    }

    private Resource<GenericKubernetesResource> create(ResourceDefinitionContext kind, String yaml) {
        GenericKubernetesResource resource = JSON.convertValue(ManifestFile.parse(yaml).get(0), GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(kind).inNamespace("ml").resource(resource);
        handle.create();
        return handle;
    }

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }
}
