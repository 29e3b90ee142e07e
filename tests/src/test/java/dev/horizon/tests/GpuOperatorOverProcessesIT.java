package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.kubeflow.controller.KubeflowController;
import dev.horizon.kubeflow.controller.MockCluster;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * A 3g.40gb PyTorchJob on a device-plugin node end to end: the control plane and an agent on the simulated driver as
 * processes, the Kubeflow controller in this JVM, all against the fabric8 mock API server (CRUD mode). The test plays the
 * GPU Operator's MIG manager: it reads the layout Horizon put in the mig-parted ConfigMap and the node's
 * nvidia.com/mig.config label, first answers nvidia.com/mig.config.state=failed (the command fails, the GPU is planned
 * again), then makes the instances on the simulated GPU and answers success; the job is released only then, asking for
 * nvidia.com/mig-3g.40gb. The agent never gets the layout.
 */
@EnableKubernetesMockClient(crud = true)
class GpuOperatorOverProcessesIT extends OverProcesses {
    private static final String ADMIN = "gpu-operator-it-admin";
    private static final String NODE = "op-node";
    private static final String MIG_CONFIG = "nvidia.com/mig.config";
    private static final String MIG_STATE = "nvidia.com/mig.config.state";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String JOB = """
            apiVersion: kubeflow.org/v1
            kind: PyTorchJob
            metadata: {name: quantize, namespace: ml, annotations: {horizon.dev/duration-estimate: 1h}}
            spec:
              pytorchReplicaSpecs:
                Worker:
                  replicas: 1
                  template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/mig-3g.40gb: 1}}}]}}
            """;

    KubernetesClient client;
    private Horizon.Rest admin;

    @Test
    void aMigJobWaitsForTheMigManagerIsPlannedAgainAfterAFailureAndIsReleasedOnItsProfile() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels("nvidia.com/gpu.present", "true").endMetadata().build())
                .create();
        Horizon.ControlPlane controlPlane = controlPlane(ADMIN, "-Dhorizon.kubernetes.enabled=true",
                "-Dhorizon.kubernetes.master-url=" + client.getMasterUrl(), "-Dhorizon.kubernetes.gpu-mode=device-plugin");
        admin = controlPlane.admin();
        admin.json("POST", "/api/v1/teams", "{\"name\":\"ml\",\"share\":1.0}", 201);
        admin.json("PUT", "/api/v1/mig-policies/h100s", "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"3g.40gb\"],"
                + "\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":0,\"maxConcurrentReconfigurations\":1}", 201);
        agent(controlPlane, NODE);
        await("the agent's node registering", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + NODE, null, 200), n -> n.path("gpus").size() == 8);

        MockCluster.installCrd(client, KubeflowKind.PYTORCH_JOB);
        Resource<GenericKubernetesResource> job = MockCluster.create(client, JOB);
        KubeflowController controller = new KubeflowController(client, new RestSchedulerClient(URI.create("http://127.0.0.1:" + controlPlane.port()),
                ADMIN), TranslationOptions.defaults(), Clock.systemUTC());
        controller.reconcileAll();

        String first = await("a layout in the mig-parted ConfigMap and the node's label", 60, dir, () -> {
            controller.reconcileAll();
            return label(MIG_CONFIG);
        }, l -> l != null && l.startsWith("horizon-"));
        assertTrue(suspended(job), "held until the MIG manager has made the instance");
        String file = client.configMaps().inNamespace("gpu-operator").withName("horizon-mig-parted-config").get().getData().get("config.yaml");
        assertTrue(file.contains(first + ":") && file.contains("\"3g.40gb\": 2"), file);

        label(MIG_STATE, "failed");
        JsonNode failed = await("the layout command failed with the MIG manager's state", 30, dir, this::node,
                n -> layouts(n).anyMatch(c -> "FAILED".equals(c.path("state").asText())));
        assertTrue(layouts(failed).filter(c -> "FAILED".equals(c.path("state").asText())).findFirst().orElseThrow().path("error").asText()
                .contains("nvidia.com/mig.config.state=failed"), failed.toString());
        String again = await("the GPU planned again: a new layout and a new label value", 60, dir, () -> label(MIG_CONFIG),
                l -> l != null && !l.equals(first));
        assertTrue(suspended(job));

        // the MIG manager makes the instances on the GPU of Horizon's layout, as nvidia-mig-parted would, and says so
        int gpu = gpuOf(again);
        Horizon.sim(dir, NODE, "mig gpu=" + gpu + " current=1 pending=1");
        for (int half = 0; half < 2; half++) {
            Horizon.sim(dir, NODE, "gi gpu=" + gpu + " id=" + (half + 1) + " profile=9 start=" + (4 * half) + " size=4");
            Horizon.sim(dir, NODE, "ci gpu=" + gpu + " gi=" + (half + 1) + " id=0 profile=2 start=0 size=3");
        }
        label(MIG_STATE, "success");

        JsonNode released = await("the PyTorchJob released on its MIG instance", 60, dir, () -> {
            controller.reconcileAll();
            return (JsonNode) Horizon.JSON.valueToTree(job.get());
        }, j -> !suspended(j));
        JsonNode worker = released.at("/spec/pytorchReplicaSpecs/Worker/template/spec");
        assertEquals("{\"nvidia.com/mig-3g.40gb\":1}", worker.at("/containers/0/resources/limits").toString());
        assertTrue(worker.at("/affinity").toString().contains("\"" + NODE + "\""), worker.toString());
        JsonNode node = node();
        assertTrue(layouts(node).anyMatch(c -> "SUCCEEDED".equals(c.path("state").asText())), node.toString());
        assertEquals("device-plugin", node.path("gpuMode").asText());
    }

    private JsonNode node() throws Exception {
        return admin.json("GET", "/api/v1/nodes/" + NODE, null, 200);
    }

    private String label(String key) {
        Map<String, String> labels = client.nodes().withName(NODE).get().getMetadata().getLabels();
        return labels == null ? null : labels.get(key);
    }

    private void label(String key, String value) {
        client.nodes().withName(NODE).edit(n -> {
            n.getMetadata().getLabels().put(key, value);
            return n;
        });
    }

    private static boolean suspended(Resource<GenericKubernetesResource> job) {
        return suspended((JsonNode) Horizon.JSON.valueToTree(job.get()));
    }

    private static boolean suspended(JsonNode job) {
        return job.at("/spec/runPolicy/suspend").asBoolean(false);
    }

    private static Stream<JsonNode> layouts(JsonNode node) {
        return StreamSupport.stream(node.path("commands").spliterator(), false).filter(c -> c.path("action").has("applyMigLayout"));
    }

    /** The GPU index Horizon's layout turns MIG on for, read back from the ConfigMap. */
    private int gpuOf(String config) throws Exception {
        JsonNode file = YAML.readTree(client.configMaps().inNamespace("gpu-operator").withName("horizon-mig-parted-config").get().getData().get("config.yaml"));
        for (JsonNode entry : file.path("mig-configs").path(config)) {
            if (entry.path("mig-enabled").asBoolean()) return entry.path("devices").get(0).asInt();
        }
        throw new AssertionError("layout " + config + " turns MIG on nowhere: " + file);
    }
}
