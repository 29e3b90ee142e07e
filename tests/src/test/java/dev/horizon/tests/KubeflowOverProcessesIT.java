package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.kubeflow.controller.KubeflowController;
import dev.horizon.kubeflow.controller.MockCluster;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * A Kubeflow training job end to end: the control plane and an agent on the simulated driver as processes, the Kubeflow
 * adapter's controller in this JVM against the fabric8 mock API server (no API server can be installed here). The
 * controller submits the PyTorchJob and holds it suspended, the control plane plans it onto the agent's node, the
 * controller pins it there and unsuspends it, and the work shows in the agent's telemetry. Without a kubelet nothing
 * starts the pods, so the test puts the training processes on the planned GPUs through the simulated driver, as the
 * pods would appear to NVML.
 */
@EnableKubernetesMockClient(crud = true)
class KubeflowOverProcessesIT extends OverProcesses {
    private static final String ADMIN = "kubeflow-it-admin";
    private static final String NODE = "kf-node";
    private static final String PYTORCH_JOB = """
            apiVersion: kubeflow.org/v1
            kind: PyTorchJob
            metadata: {name: bert-finetune, namespace: ml, annotations: {horizon.dev/duration-estimate: 2h}}
            spec:
              pytorchReplicaSpecs:
                Master:
                  replicas: 1
                  template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}}
                Worker:
                  replicas: 1
                  template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}}
            """;

    KubernetesClient client;
    @Test
    void submitPlanUnsuspendAndTheWorkShowsInTelemetry() throws Exception {
        Horizon.ControlPlane controlPlane = controlPlane(ADMIN);
        Horizon.Rest admin = controlPlane.admin();
        admin.json("POST", "/api/v1/teams", "{\"name\":\"ml\",\"share\":1.0}", 201);
        agent(controlPlane, NODE);
        JsonNode node = await("the agent's node registering", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200),
                n -> n.path("gpus").size() == 8);

        MockCluster.installCrd(client, KubeflowKind.PYTORCH_JOB);
        Resource<GenericKubernetesResource> job = MockCluster.create(client, PYTORCH_JOB);
        KubeflowController controller = new KubeflowController(client, new RestSchedulerClient(URI.create("http://127.0.0.1:" + controlPlane.port()),
                ADMIN), TranslationOptions.defaults(), Clock.systemUTC());

        // the controller's resync passes, until the planned job is released
        JsonNode released = await("the PyTorchJob unsuspended on " + NODE, 30, dir, () -> {
            controller.reconcileAll();
            return (JsonNode) Horizon.JSON.valueToTree(job.get());
        }, j -> j.at("/spec/runPolicy/suspend").isBoolean() && !j.at("/spec/runPolicy/suspend").asBoolean());
        String id = released.at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        JsonNode planned = admin.json("GET", "/api/v1/jobs/" + id, null, 200);
        assertEquals("RUNNING", planned.get("state").asText());
        assertEquals(4, planned.get("gpus").asInt(), "2 replicas x 2 GPUs");
        assertEquals("ml", planned.get("team").asText());
        String placement = planned.get("placement").asText();
        assertTrue(placement.matches(NODE + "\\[\\d+-\\d+\\]"), placement);
        for (String replica : List.of("Master", "Worker")) {
            JsonNode terms = released.at("/spec/pytorchReplicaSpecs/" + replica
                    + "/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
            assertTrue(terms.toString().contains("\"kubernetes.io/hostname\"") && terms.toString().contains("\"" + NODE + "\""),
                    replica + " pinned to the planned node: " + terms);
        }

        // the pods' processes on the planned GPUs, as NVML shows them to the agent
        int first = Integer.parseInt(placement.replaceAll(".*\\[(\\d+)-\\d+\\]", "$1"));
        int last = Integer.parseInt(placement.replaceAll(".*\\[\\d+-(\\d+)\\]", "$1"));
        for (int g = first; g <= last; g++) Horizon.sim(dir, NODE, "process gpu=" + g + " pid=" + (7000 + g) + " mem=60000 sm=90 name=torchrun");
        JsonNode working = await("the job's GPUs busy in the control plane's telemetry", 30, dir,
                () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200), n -> busy(n, first, last));
        for (JsonNode g : working.get("gpus")) {
            int index = g.get("index").asInt();
            boolean held = index >= first && index <= last;
            assertEquals(held ? 1 : 0, g.get("processes").size(), "only the planned GPUs run the job: " + g);
        }
        assertEquals(node.get("gpus").size(), working.get("gpus").size());
    }

    /** Every GPU from first to last runs one process holding 60000 MiB, and reports the work as utilization. */
    private static boolean busy(JsonNode node, int first, int last) {
        return StreamSupport.stream(node.path("gpus").spliterator(), false).filter(g -> g.path("index").asInt() >= first && g.path("index").asInt() <= last)
                .allMatch(g -> g.path("processes").size() == 1 && g.path("memoryUsedMiB").asLong() >= 60000 && g.path("utilization").asDouble() > 0.5);
    }
}
