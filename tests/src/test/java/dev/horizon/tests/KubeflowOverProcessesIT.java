package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kubeflow.batch.BatchKind;
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
 * Kubeflow training jobs end to end: the control plane and an agent on the simulated driver as processes, the Kubeflow
 * adapter's controller in this JVM against the fabric8 mock API server (no API server can be installed here). The
 * controller submits a training-operator PyTorchJob and an mpi-operator kubeflow.org/v2beta1 MPIJob and holds them
 * suspended (runPolicy.suspend), the control plane plans them onto the agent's node, the controller pins their GPU
 * replicas there and unsuspends them, and the work shows in the agent's telemetry. Without a kubelet nothing starts the
 * pods, so the test puts the training processes on the planned GPUs through the simulated driver, as the pods would
 * appear to NVML. A batch/v1 indexed Job then goes through the same controller pass onto a second node.
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
    private static final String BATCH_NODE = "kf-batch-node";
    private static final String BATCH_JOB = """
            apiVersion: batch/v1
            kind: Job
            metadata: {name: eval-sweep, namespace: ml, annotations: {horizon.dev/duration-estimate: 1h}}
            spec:
              completionMode: Indexed
              completions: 2
              parallelism: 2
              template: {spec: {restartPolicy: Never, containers: [{name: eval, image: x, resources: {limits: {nvidia.com/gpu: 2}}}]}}
            """;
    private static final String AFFINITY = "/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms";

    KubernetesClient client;

    private Horizon.ControlPlane controlPlane;

    @Test
    void submitPlanUnsuspendAndTheWorkShowsInTelemetry() throws Exception {
        controlPlane = controlPlane(ADMIN);
        Horizon.Rest admin = controlPlane.admin();
        admin.json("POST", "/api/v1/teams", "{\"name\":\"ml\",\"share\":1.0}", 201);
        agent(controlPlane, NODE);
        JsonNode node = await("the agent's node registering", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200),
                n -> n.path("gpus").size() == 8);

        MockCluster.installCrd(client, KubeflowKind.PYTORCH_JOB);
        MockCluster.installCrd(client, KubeflowKind.MPI_JOB_V2BETA1);
        Resource<GenericKubernetesResource> pytorch = MockCluster.create(client, PYTORCH_JOB);
        Resource<GenericKubernetesResource> mpi = MockCluster.create(client, MockCluster.MPI_JOB_V2BETA1);
        KubeflowController controller = new KubeflowController(client, new RestSchedulerClient(URI.create("http://127.0.0.1:" + controlPlane.port()),
                ADMIN), TranslationOptions.defaults(), Clock.systemUTC());

        // the controller's resync passes, until both planned jobs are released
        await("both jobs unsuspended on " + NODE, 30, dir, () -> {
            controller.reconcileAll();
            return List.of((JsonNode) Horizon.JSON.valueToTree(pytorch.get()), (JsonNode) Horizon.JSON.valueToTree(mpi.get()));
        }, jobs -> jobs.stream().allMatch(j -> j.at("/spec/runPolicy/suspend").isBoolean() && !j.at("/spec/runPolicy/suspend").asBoolean()));
        int[] pytorchGpus = releasedOnTheNode(admin, Horizon.JSON.valueToTree(pytorch.get()), "pytorchReplicaSpecs", List.of("Master", "Worker"));
        JsonNode released = Horizon.JSON.valueToTree(mpi.get());
        int[] mpiGpus = releasedOnTheNode(admin, released, "mpiReplicaSpecs", List.of("Worker"));
        assertEquals("kubeflow.org/v2beta1", released.path("apiVersion").asText());
        assertTrue(released.at("/spec/mpiReplicaSpecs/Launcher/template/spec/affinity").isMissingNode(), "the CPU launcher runs where Kubernetes puts it");
        assertTrue(pytorchGpus[1] < mpiGpus[0] || mpiGpus[1] < pytorchGpus[0], "the jobs hold different GPUs");

        // the pods' processes on the planned GPUs, as NVML shows them to the agent
        for (int[] gpus : List.of(pytorchGpus, mpiGpus)) {
            for (int g = gpus[0]; g <= gpus[1]; g++) Horizon.sim(dir, NODE, "process gpu=" + g + " pid=" + (7000 + g) + " mem=60000 sm=90 name=worker");
        }
        JsonNode working = await("the jobs' GPUs busy in the control plane's telemetry", 30, dir,
                () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200), n -> busy(n, pytorchGpus) && busy(n, mpiGpus));
        for (JsonNode g : working.get("gpus")) {
            int index = g.get("index").asInt();
            boolean held = within(index, pytorchGpus) || within(index, mpiGpus);
            assertEquals(held ? 1 : 0, g.get("processes").size(), "only the planned GPUs run the jobs: " + g);
        }
        assertEquals(node.get("gpus").size(), working.get("gpus").size());

        batchJobFromSubmissionToRelease(admin, controller);
    }

    /**
     * A batch/v1 indexed Job through the same controller pass, once a second node has room: held by spec.suspend,
     * submitted as a gang of its two 2-GPU pods, released onto that node's planned GPUs.
     */
    private void batchJobFromSubmissionToRelease(Horizon.Rest admin, KubeflowController controller) throws Exception {
        agent(controlPlane, BATCH_NODE);
        await("the second node registering", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + BATCH_NODE, null, 200), n -> n.path("gpus").size() == 8);
        GenericKubernetesResource job = Horizon.JSON.convertValue(ManifestFile.parse(BATCH_JOB).get(0), GenericKubernetesResource.class);
        Resource<GenericKubernetesResource> batch = client.genericKubernetesResources(KubeflowController.context(BatchKind.JOB)).inNamespace("ml").resource(job);
        batch.create();
        JsonNode released = await("the batch Job unsuspended on " + BATCH_NODE, 30, dir, () -> {
            controller.reconcileAll();
            return (JsonNode) Horizon.JSON.valueToTree(batch.get());
        }, j -> j.at("/spec/suspend").isBoolean() && !j.at("/spec/suspend").asBoolean());
        JsonNode planned = admin.json("GET", "/api/v1/jobs/" + released.at("/metadata/annotations").path(KubeflowController.JOB_ID).asText(), null, 200);
        assertEquals("RUNNING", planned.get("state").asText());
        assertEquals(4, planned.get("gpus").asInt(), "2 indexed pods x 2 GPUs");
        assertTrue(planned.get("placement").asText().matches(BATCH_NODE + "\\[\\d+-\\d+\\]"), planned.get("placement").asText());
        assertTrue(released.at("/spec" + AFFINITY).toString().contains("\"" + BATCH_NODE + "\""), "the pods pinned to the planned node: " + released);
    }

    /** The released job's scheduler job runs on the agent's node with 4 GPUs, and each GPU replica is pinned there; returns its GPU range. */
    private static int[] releasedOnTheNode(Horizon.Rest admin, JsonNode released, String replicaSpecs, List<String> gpuReplicas) throws Exception {
        String id = released.at("/metadata/annotations").path(KubeflowController.JOB_ID).asText();
        JsonNode planned = admin.json("GET", "/api/v1/jobs/" + id, null, 200);
        String what = released.path("kind").asText() + " " + released.at("/metadata/name").asText();
        assertEquals("RUNNING", planned.get("state").asText(), what);
        assertEquals(4, planned.get("gpus").asInt(), what + ": 2 GPU replicas x 2 GPUs");
        assertEquals("ml", planned.get("team").asText());
        String placement = planned.get("placement").asText();
        assertTrue(placement.matches(NODE + "\\[\\d+-\\d+\\]"), placement);
        for (String replica : gpuReplicas) {
            JsonNode terms = released.at("/spec/" + replicaSpecs + "/" + replica + AFFINITY);
            assertTrue(terms.toString().contains("\"kubernetes.io/hostname\"") && terms.toString().contains("\"" + NODE + "\""),
                    what + " " + replica + " pinned to the planned node: " + terms);
        }
        return new int[] {Integer.parseInt(placement.replaceAll(".*\\[(\\d+)-\\d+\\]", "$1")),
                Integer.parseInt(placement.replaceAll(".*\\[\\d+-(\\d+)\\]", "$1"))};
    }

    private static boolean within(int index, int[] range) {
        return index >= range[0] && index <= range[1];
    }

    /** Every GPU of the range runs one process holding 60000 MiB, and reports the work as utilization. */
    private static boolean busy(JsonNode node, int[] range) {
        return StreamSupport.stream(node.path("gpus").spliterator(), false).filter(g -> within(g.path("index").asInt(), range))
                .allMatch(g -> g.path("processes").size() == 1 && g.path("memoryUsedMiB").asLong() >= 60000 && g.path("utilization").asDouble() > 0.5);
    }
}
