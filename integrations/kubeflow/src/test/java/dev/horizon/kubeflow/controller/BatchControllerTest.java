package dev.horizon.kubeflow.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A batch Job and a JobSet through the same pass as the Kubeflow jobs, against the fabric8 mock API server. */
@EnableKubernetesMockClient(crud = true)
class BatchControllerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOSTNAMES = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values";

    KubernetesClient client;
    private FakeScheduler scheduler;
    private KubeflowController controller;

    @BeforeEach
    void setUp() {
        JSONSchemaProps open = new JSONSchemaProps();
        open.setType("object");
        open.setXKubernetesPreserveUnknownFields(true);
        BatchKind set = BatchKind.JOB_SET;
        client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(set.plural() + "." + set.group()).endMetadata()
                .withNewSpec().withGroup(set.group()).withScope("Namespaced")
                .withNewNames().withKind(set.kind()).withPlural(set.plural()).endNames()
                .addNewVersion().withName(set.version()).withServed(true).withStorage(true)
                .withNewSchema().withOpenAPIV3Schema(open).endSchema()
                .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
                .endSpec().build()).create();
        scheduler = new FakeScheduler();
        controller = new KubeflowController(client, scheduler, TranslationOptions.defaults(), Clock.fixed(Instant.parse("2026-12-01T12:00:00Z"), ZoneOffset.UTC));
    }

    private Resource<GenericKubernetesResource> create(BatchKind kind, String yaml) {
        GenericKubernetesResource resource = JSON.convertValue(ManifestFile.parse(yaml).get(0), GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(KubeflowController.context(kind)).inNamespace("ml").resource(resource);
        handle.create();
        return handle;
    }

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }

    @Test
    void anIndexedJobIsHeldSubmittedAsAGangReleasedOnItsPlannedNodesAndReportedWhenComplete() {
        Resource<GenericKubernetesResource> job = create(BatchKind.JOB, """
                apiVersion: batch/v1
                kind: Job
                metadata: {name: sft, namespace: ml, labels: {kueue.x-k8s.io/queue-name: nlp}}
                spec:
                  completionMode: Indexed
                  completions: 2
                  parallelism: 2
                  template: {spec: {restartPolicy: Never, containers: [{name: main, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]}}
                """);
        controller.reconcileAll();
        JsonNode held = tree(job);
        assertTrue(held.at("/spec/suspend").asBoolean(), "held suspended until planned");
        String id = held.at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        assertEquals(2, scheduler.submitted.get(id).replicaCount());
        assertTrue(scheduler.submitted.get(id).gangOrDefault());
        assertEquals("nlp", scheduler.submitted.get(id).team());

        scheduler.plan(id, null, "node-a");
        controller.reconcileAll();
        JsonNode running = tree(job);
        assertFalse(running.at("/spec/suspend").asBoolean(), "released once planned");
        assertEquals("[\"node-a\"]", running.at("/spec/template" + HOSTNAMES).toString());

        ObjectNode done = (ObjectNode) running;
        done.putObject("status").putArray("conditions").addObject().put("type", "Complete").put("status", "True");
        client.genericKubernetesResources(KubeflowController.context(BatchKind.JOB)).inNamespace("ml")
                .resource(JSON.convertValue(done, GenericKubernetesResource.class)).updateStatus();
        controller.reconcileAll();
        assertEquals(Boolean.TRUE, scheduler.finished.get(id), "a complete Job gives its GPUs back");
    }

    @Test
    void aJobSetsGpuGroupsTakeTheirPlannedDevicesInOrderAndDraIsRefusedWithItsReason() {
        Resource<GenericKubernetesResource> set = create(BatchKind.JOB_SET, """
                apiVersion: jobset.x-k8s.io/v1alpha2
                kind: JobSet
                metadata: {name: slices, namespace: ml}
                spec:
                  replicatedJobs:
                  - name: driver
                    template: {spec: {template: {spec: {containers: [{name: d, image: x}]}}}}
                  - name: workers
                    replicas: 2
                    template: {spec: {parallelism: 1, template: {spec: {containers: [{name: w, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}}}}
                """);
        controller.reconcileAll();
        String id = tree(set).at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        assertEquals(2, scheduler.submitted.get(id).replicaCount());

        scheduler.plan(id, new PlannedPlacement(List.of("node-a", "node-b"), null, List.of(device("node-a", GpuMode.DRA), device("node-b", GpuMode.DRA))));
        controller.reconcileAll();
        JsonNode refused = tree(set);
        assertTrue(refused.at("/spec/suspend").asBoolean(), "not released in dra mode");
        assertTrue(refused.at("/status/conditions/0/message").asText().contains("JobSets are released in device-plugin mode only"),
                refused.at("/status/conditions").toString());

        scheduler.plan(id, new PlannedPlacement(List.of("node-a", "node-b"), null,
                List.of(device("node-a", GpuMode.DEVICE_PLUGIN), device("node-b", GpuMode.DEVICE_PLUGIN))));
        controller.reconcileAll();
        JsonNode running = tree(set);
        assertFalse(running.at("/spec/suspend").asBoolean());
        assertEquals("[\"node-a\",\"node-b\"]", running.at("/spec/replicatedJobs/1/template/spec/template" + HOSTNAMES).toString(),
                "the GPU group is pinned to the nodes of its planned devices");
        assertTrue(running.at("/spec/replicatedJobs/0/template/spec/template/spec/affinity").isMissingNode(), "the CPU driver runs where it may");
    }

    @Test
    void aJobAnotherWorkloadControlsIsLeftToItsOwnerAndACronJobsJobIsHeld() {
        String job = """
                apiVersion: batch/v1
                kind: Job
                metadata:
                  name: NAME
                  namespace: ml
                  ownerReferences: [{apiVersion: OWNER_API, kind: OWNER, name: parent, uid: "1", controller: true}]
                spec: {template: {spec: {restartPolicy: Never, containers: [{name: w, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
                """;
        Resource<GenericKubernetesResource> child = create(BatchKind.JOB, job.replace("NAME", "slices-workers-0").replace("OWNER_API", "jobset.x-k8s.io/v1alpha2")
                .replace("OWNER", "JobSet"));
        Resource<GenericKubernetesResource> nightly = create(BatchKind.JOB, job.replace("NAME", "nightly-eval").replace("OWNER_API", "batch/v1")
                .replace("OWNER", "CronJob"));
        controller.reconcileAll();
        assertTrue(tree(child).at("/metadata/annotations").path(KubeflowController.JOB_ID).isMissingNode(), "planned through its JobSet");
        assertFalse(tree(child).at("/spec/suspend").asBoolean(), "left untouched");
        assertTrue(tree(nightly).at("/spec/suspend").asBoolean(), "a CronJob's Job is held like any other");
        assertEquals(1, scheduler.submitted.size());
    }

    private static PlannedDevice device(String node, GpuMode mode) {
        return new PlannedDevice(node, 0, "GPU-" + node, null, null, null, null, mode);
    }
}
