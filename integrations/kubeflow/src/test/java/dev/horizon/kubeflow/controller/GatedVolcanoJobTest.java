package dev.horizon.kubeflow.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kit.WorkloadReconciler;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A Volcano Job whose tasks are gated horizon.dev/planned: one gang, released pod by pod by ungating, against the fabric8 mock API server. */
@EnableKubernetesMockClient(crud = true)
class GatedVolcanoJobTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOSTNAMES = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values";
    private static final String VOLCANO_JOB = """
            apiVersion: batch.volcano.sh/v1alpha1
            kind: Job
            metadata: {name: NAME, namespace: ml}
            spec:
              schedulerName: volcano
              queue: research
              minAvailable: 2
              tasks:
              - name: worker
                replicas: 3
                template:
                  spec:
                    GATESrestartPolicy: Never
                    containers: [{name: main, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
            """;
    private static final String GATES = "schedulingGates: [{name: horizon.dev/planned}]\n        ";
    /** A pod as Volcano makes it from the task's template: named JOB-TASK-INDEX, labelled with its job, owned by it, still gated. */
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: train-worker-INDEX
              namespace: ml
              labels: {volcano.sh/job-name: train}
              annotations: {volcano.sh/task-spec: worker}
              ownerReferences: [{apiVersion: batch.volcano.sh/v1alpha1, kind: Job, name: train, uid: u-1, controller: true}]
            spec:
              schedulingGates: [{name: horizon.dev/planned}]
              restartPolicy: Never
              containers: [{name: main, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
            """;

    KubernetesClient client;
    private FakeScheduler scheduler;
    private KubeflowController controller;

    @BeforeEach
    void setUp() {
        MockCluster.installCrd(client, KubeflowController.context(BatchKind.VOLCANO_JOB));
        scheduler = new FakeScheduler();
        controller = new KubeflowController(client, scheduler, TranslationOptions.defaults(), Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"), ZoneOffset.UTC));
    }

    @Test
    void aGatedVolcanoJobIsOneGangReleasedByPinningAndUngatingEachPodAndReportedByItsPhase() {
        Resource<GenericKubernetesResource> job = create(VOLCANO_JOB.replace("NAME", "train").replace("GATES", GATES));
        Resource<GenericKubernetesResource> ungated = create(VOLCANO_JOB.replace("NAME", "plain").replace("GATES", ""));
        controller.reconcileAll();
        String id = tree(job).at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        JobSpec gang = scheduler.submitted.get(id);
        assertEquals(3, gang.replicaCount());
        assertEquals(2, gang.minReplicas(), "minAvailable is the gang");
        assertEquals("research", gang.team());
        assertTrue(tree(ungated).at("/metadata/annotations").isMissingNode(), "an ungated Volcano Job is translation only, left to Volcano");

        scheduler.plan(id, new PlannedPlacement(List.of("node-a", "node-b", "node-c"), null, List.of(device("node-a"), device("node-b"), device("node-c"))));
        controller.reconcileAll();
        assertTrue(tree(job).at("/metadata/annotations").path(WorkloadReconciler.EXPLANATION).asText().contains("Volcano has made 0 of task worker's 3 pods"),
                "held until Volcano has made every pod: " + tree(job).path("metadata"));

        Resource<Pod> first = createPod("0");
        Resource<Pod> second = createPod("1");
        Resource<Pod> third = createPod("2");
        controller.reconcileAll();
        assertEquals(1, scheduler.submitted.size(), "the job's pods are planned through their job, never as pods of their own");
        for (Resource<Pod> pod : List.of(first, second, third)) assertTrue(pod.get().getSpec().getSchedulingGates().isEmpty(), "the gate removed");
        assertEquals("[\"node-a\"]", JSON.valueToTree(first.get()).at(HOSTNAMES).toString(), "each pod on its planned node, in index order");
        assertEquals("[\"node-b\"]", JSON.valueToTree(second.get()).at(HOSTNAMES).toString());
        assertEquals("[\"node-c\"]", JSON.valueToTree(third.get()).at(HOSTNAMES).toString());
        assertEquals("node-a,node-b,node-c", tree(job).at("/metadata/annotations").path(KubeflowController.PLACEMENT).asText());

        for (Resource<Pod> pod : List.of(first, second, third)) pod.delete();
        for (String index : List.of("0", "1", "2")) createPod(index);
        controller.reconcileAll();
        assertTrue(third.get().getSpec().getSchedulingGates().isEmpty(), "a job Volcano restarted, its pods made again gated, is released again");
        assertEquals("[\"node-c\"]", JSON.valueToTree(third.get()).at(HOSTNAMES).toString(), "onto the same plan");

        ObjectNode done = (ObjectNode) tree(job);
        done.putObject("status").putObject("state").put("phase", "Completed");
        client.genericKubernetesResources(KubeflowController.context(BatchKind.VOLCANO_JOB)).inNamespace("ml")
                .resource(JSON.convertValue(done, GenericKubernetesResource.class)).updateStatus();
        controller.reconcileAll();
        assertEquals(Boolean.TRUE, scheduler.finished.get(id), "its GPUs go back when Volcano says it completed");
    }

    @Test
    void aPreemptedVolcanoJobCannotBeGatedAgainSoItIsDeletedAndItsJobCancelled() {
        Resource<GenericKubernetesResource> job = create(VOLCANO_JOB.replace("NAME", "train").replace("GATES", GATES));
        controller.reconcileAll();
        String id = tree(job).at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        for (String index : List.of("0", "1", "2")) createPod(index);
        scheduler.plan(id, null, "node-a");
        controller.reconcileAll();
        assertFalse(tree(job).at("/metadata/annotations").path(KubeflowController.PLACEMENT).isMissingNode(), "released");

        scheduler.preempt(id);
        controller.reconcileAll();
        assertNull(job.get(), "deleted: its pods cannot be gated again");
        assertTrue(scheduler.cancelled.contains(id));
    }

    private static PlannedDevice device(String node) {
        return new PlannedDevice(node, 0, "GPU-" + node, null, null, null, null, GpuMode.DEVICE_PLUGIN);
    }

    private Resource<GenericKubernetesResource> create(String yaml) {
        GenericKubernetesResource resource = JSON.convertValue(ManifestFile.parse(yaml).get(0), GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(KubeflowController.context(BatchKind.VOLCANO_JOB)).inNamespace("ml")
                .resource(resource);
        handle.create();
        return handle;
    }

    private Resource<Pod> createPod(String index) {
        Resource<Pod> handle = client.pods().inNamespace("ml").resource(JSON.convertValue(ManifestFile.parse(POD.replace("INDEX", index)).get(0), Pod.class));
        handle.create();
        return handle;
    }

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }
}
