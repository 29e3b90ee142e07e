package dev.horizon.kubeflow.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A bare Pod held by the horizon.dev/planned scheduling gate, against the fabric8 mock API server. */
@EnableKubernetesMockClient(crud = true)
class GatedPodTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOSTNAMES = "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0/values";
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata: {name: NAME, namespace: ml}
            spec:
              GATESrestartPolicy: Never
              containers: [{name: main, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]
            """;

    KubernetesClient client;
    private FakeScheduler scheduler;
    private KubeflowController controller;

    @BeforeEach
    void setUp() {
        scheduler = new FakeScheduler();
        controller = new KubeflowController(client, scheduler, TranslationOptions.defaults(), Clock.fixed(Instant.parse("2026-12-03T12:00:00Z"), ZoneOffset.UTC));
    }

    @Test
    void aGatedPodIsSubmittedReleasedOnItsPlannedNodeByRemovingTheGateAndReportedWhenItEnds() {
        Resource<GenericKubernetesResource> pod = create(POD.replace("NAME", "probe").replace("GATES", "schedulingGates: [{name: horizon.dev/planned}]\n  "));
        Resource<GenericKubernetesResource> ungated = create(POD.replace("NAME", "notebook").replace("GATES", ""));
        controller.reconcileAll();
        String id = tree(pod).at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        assertEquals(2, scheduler.submitted.get(id).perReplica().gpus());
        assertTrue(tree(ungated).at("/metadata/annotations").isMissingNode(), "a pod not gated for Horizon is the extender's or the default scheduler's");
        assertEquals(1, scheduler.submitted.size());

        scheduler.plan(id, null, "node-a");
        controller.reconcileAll();
        JsonNode released = tree(pod);
        assertTrue(released.at("/spec/schedulingGates").isMissingNode(), "the gate removed: " + released.path("spec"));
        assertEquals("[\"node-a\"]", released.at(HOSTNAMES).toString());

        ObjectNode done = (ObjectNode) released;
        done.putObject("status").put("phase", "Succeeded");
        client.genericKubernetesResources(KubeflowController.context(BatchKind.POD)).inNamespace("ml")
                .resource(JSON.convertValue(done, GenericKubernetesResource.class)).updateStatus();
        controller.reconcileAll();
        assertEquals(Boolean.TRUE, scheduler.finished.get(id), "its GPUs go back when it ends");
    }

    @Test
    void aPreemptedPodCannotBeGatedAgainSoItIsDeletedAndItsJobCancelled() {
        Resource<GenericKubernetesResource> pod = create(POD.replace("NAME", "probe").replace("GATES", "schedulingGates: [{name: horizon.dev/planned}]\n  "));
        controller.reconcileAll();
        String id = tree(pod).at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        scheduler.plan(id, null, "node-a");
        controller.reconcileAll();
        assertFalse(tree(pod).at("/spec").has("schedulingGates"));

        scheduler.preempt(id);
        controller.reconcileAll();
        assertNull(pod.get(), "evicted, as Kubernetes evicts a pod");
        assertTrue(scheduler.cancelled.contains(id));
    }

    private Resource<GenericKubernetesResource> create(String yaml) {
        GenericKubernetesResource resource = JSON.convertValue(ManifestFile.parse(yaml).get(0), GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> handle = client.genericKubernetesResources(KubeflowController.context(BatchKind.POD)).inNamespace("ml")
                .resource(resource);
        handle.create();
        return handle;
    }

    private static JsonNode tree(Resource<GenericKubernetesResource> handle) {
        return JSON.valueToTree(handle.get());
    }
}
