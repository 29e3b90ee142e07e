package dev.horizon.kubeflow.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.scheduler.FakeScheduler;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import dev.horizon.kubernetes.dra.DraCluster;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A planned PyTorchJob of 2 x 4 GPUs released in dra mode against the fabric8 mock API server (CRUD mode) with the
 * ResourceSlices NVIDIA's DRA driver publishes: each replica type's claim selects exactly its planned GPUs.
 */
@EnableKubernetesMockClient(crud = true)
class DraReleaseTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern GPU_UUID = Pattern.compile("\"(GPU-[^\"]+)\"");
    private static final String PYTORCH_JOB = """
            apiVersion: kubeflow.org/v1
            kind: PyTorchJob
            metadata: {name: llama-sft, namespace: ml, uid: 6c1d0e4e-0000-4000-8000-000000000001}
            spec:
              pytorchReplicaSpecs:
                Master:
                  replicas: 1
                  template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 4, cpu: 16}}}]}}
                Worker:
                  replicas: 1
                  template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 4, cpu: 16}}}]}}
            """;

    KubernetesClient client;
    private FakeScheduler scheduler;
    private KubeflowController controller;
    private DraCluster node2;

    @BeforeEach
    void setUp() {
        MockCluster.installCrd(client, KubeflowKind.PYTORCH_JOB);
        DraCluster.node(client, "node-1", Map.of()).gpus(8).publish();
        node2 = DraCluster.node(client, "node-2", Map.of());
        scheduler = new FakeScheduler();
        controller = new KubeflowController(client, scheduler, TranslationOptions.defaults(), Clock.fixed(Instant.parse("2026-12-01T12:00:00Z"), ZoneOffset.UTC));
    }

    private static List<PlannedDevice> block(String node, int first) {
        return IntStream.range(first, first + 4).mapToObj(i -> PlannedDevice.wholeGpu(node, i, DraCluster.uuid(node, i), GpuMode.DRA)).toList();
    }

    private JsonNode selectorOf(String templateName) {
        ResourceClaimTemplate t = client.resources(ResourceClaimTemplate.class).inNamespace("ml").withName(templateName).get();
        return JSON.valueToTree(t.getSpec().getSpec().getDevices().getRequests());
    }

    private static Set<String> gpusNamed(JsonNode requests) {
        Set<String> out = new TreeSet<>();
        Matcher m = GPU_UUID.matcher(requests.at("/0/exactly/selectors/0/cel/expression").asText());
        while (m.find()) out.add(m.group(1));
        return out;
    }

    private static Set<String> uuids(List<PlannedDevice> devices) {
        return new TreeSet<>(devices.stream().map(PlannedDevice::gpuUuid).toList());
    }

    @Test
    void aPlannedPyTorchJobOf2x4IsReleasedWithClaimsOnExactlyItsPlannedGpus() {
        Resource<GenericKubernetesResource> job = MockCluster.create(client, PYTORCH_JOB);
        controller.reconcileAll();
        String id = "job-1";
        assertEquals(2, scheduler.submitted.get(id).replicaCount());

        List<PlannedDevice> devices = new ArrayList<>(block("node-1", 4));
        devices.addAll(block("node-2", 0));
        scheduler.plan(id, new PlannedPlacement(List.of("node-1", "node-2"), null, devices));
        controller.reconcileAll();
        JsonNode held = JSON.valueToTree(job.get());
        assertTrue(held.at("/spec/runPolicy/suspend").asBoolean(), "node-2's driver publishes nothing yet: not released");
        JsonNode waiting = condition(held);
        assertEquals("NotReleased", waiting.path("reason").asText());
        assertTrue(waiting.path("message").asText().contains("the DRA driver publishes no GPU " + DraCluster.uuid("node-2", 0) + " on node node-2"),
                waiting.path("message").asText());

        node2.gpus(8).publish();
        controller.reconcileAll();
        JsonNode running = JSON.valueToTree(job.get());
        assertFalse(running.at("/spec/runPolicy/suspend").asBoolean(), "released once every planned device is published");
        assertEquals("Planned", condition(running).path("reason").asText());

        JsonNode master = running.at("/spec/pytorchReplicaSpecs/Master/template");
        JsonNode worker = running.at("/spec/pytorchReplicaSpecs/Worker/template");
        JsonNode masterRequests = selectorOf(master.at("/spec/resourceClaims/0/resourceClaimTemplateName").asText());
        JsonNode workerRequests = selectorOf(worker.at("/spec/resourceClaims/0/resourceClaimTemplateName").asText());
        assertEquals(uuids(devices.subList(0, 4)), gpusNamed(masterRequests), "Master takes the first planned replica: node-1's GPUs 4-7");
        assertEquals(uuids(devices.subList(4, 8)), gpusNamed(workerRequests), "Worker the second: node-2's GPUs 0-3");
        assertEquals(4, masterRequests.at("/0/exactly/count").asInt());
        assertEquals("gpu.nvidia.com", masterRequests.at("/0/exactly/deviceClassName").asText());
        assertEquals("[\"node-1\"]", master.at("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"
                + "/matchExpressions/0/values").toString(), "each replica type on its own planned node");
        assertEquals("[\"node-2\"]", worker.at("/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"
                + "/matchExpressions/0/values").toString());
        for (JsonNode template : List.of(master, worker)) {
            JsonNode container = template.at("/spec/containers/0");
            assertFalse(container.at("/resources/limits").has("nvidia.com/gpu"), "the claim gives the GPUs, not the device plugin");
            assertEquals("horizon-gpus", container.at("/resources/claims/0/name").asText());
            assertEquals("pytorch", container.at("/resources/claims/0/request").asText());
            assertTrue(template.at("/metadata/annotations/horizon.dev~1gpu-resources").asText().contains("\"nvidia.com/gpu\":4"),
                    "what the user asked is kept for a device-plugin release");
        }
        assertEquals("llama-sft", client.resources(ResourceClaimTemplate.class).inNamespace("ml").list().getItems().get(0).getMetadata()
                .getOwnerReferences().get(0).getName(), "the job owns its templates, so deleting it deletes them");

        scheduler.preempt(id);
        controller.reconcileAll();
        List<PlannedDevice> elsewhere = IntStream.range(0, 8).mapToObj(i -> PlannedDevice.wholeGpu("node-3", i, "GPU-node-3-" + i, GpuMode.DEVICE_PLUGIN)).toList();
        scheduler.plan(id, new PlannedPlacement(List.of("node-3"), null, elsewhere));
        controller.reconcileAll();
        JsonNode devicePlugin = JSON.valueToTree(job.get()).at("/spec/pytorchReplicaSpecs/Master/template/spec");
        assertEquals(4, devicePlugin.at("/containers/0/resources/limits/nvidia.com~1gpu").asInt(), "planned again without claims: the user's limits are back");
        assertTrue(devicePlugin.at("/containers/0/resources/claims").isMissingNode());
        assertTrue(devicePlugin.path("resourceClaims").isMissingNode());
        assertEquals("[\"node-3\"]", devicePlugin.at("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0"
                + "/matchExpressions/0/values").toString());
    }

    private static JsonNode condition(JsonNode object) {
        for (JsonNode c : object.at("/status/conditions")) {
            if (KubeflowController.CONDITION.equals(c.path("type").asText())) return c;
        }
        return JSON.missingNode();
    }
}
