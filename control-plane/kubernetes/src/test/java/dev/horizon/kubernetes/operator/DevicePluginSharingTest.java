package dev.horizon.kubernetes.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sharing through the device plugin's named configs against the fabric8 mock API server in CRUD mode; the test plays the device plugin. */
@EnableKubernetesMockClient(crud = true)
class DevicePluginSharingTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    KubernetesClient client;
    private DevicePluginSharing sharing;

    @BeforeEach
    void setUp() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().withNewStatus()
                .addToAllocatable("nvidia.com/gpu", new Quantity("8")).endStatus().build()).create();
        sharing = new DevicePluginSharing(client, new DevicePluginSharing.Settings("gpu-operator", "horizon-device-plugin-configs", Duration.ofMinutes(5)));
    }

    @Test
    void aNodesSharingIsANamedConfigAndTheNodeLabelAndIsAppliedOnceThePluginAdvertisesTheReplicas() throws Exception {
        DevicePluginSharing.NodeSharing four = new DevicePluginSharing.NodeSharing("TIME_SLICING", 4);
        assertEquals("horizon-time-slicing-4", sharing.apply("node-1", four));

        JsonNode config = YAML.readTree(client.configMaps().inNamespace("gpu-operator").withName("horizon-device-plugin-configs").get().getData()
                .get("horizon-time-slicing-4"));
        assertEquals("v1", config.path("version").asText());
        assertEquals("mixed", config.at("/flags/migStrategy").asText(), "MIG instances stay nvidia.com/mig-<profile>");
        assertTrue(config.at("/sharing/timeSlicing/failRequestsGreaterThanOne").asBoolean());
        assertEquals("nvidia.com/gpu", config.at("/sharing/timeSlicing/resources/0/name").asText());
        assertEquals(4, config.at("/sharing/timeSlicing/resources/0/replicas").asInt());
        assertEquals("horizon-time-slicing-4", client.nodes().withName("node-1").get().getMetadata().getLabels().get("nvidia.com/device-plugin.config"));

        assertInstanceOf(Progress.Waiting.class, sharing.progress("node-1", four, 8, Duration.ofSeconds(10)), "8 advertised, 32 expected");
        client.nodes().withName("node-1").editStatus(n -> {
            n.getStatus().getAllocatable().put("nvidia.com/gpu", new Quantity("32"));
            return n;
        });
        assertEquals(new Progress.Applied(), sharing.progress("node-1", four, 8, Duration.ofSeconds(20)));

        DevicePluginSharing.NodeSharing mps = new DevicePluginSharing.NodeSharing("MPS", 2);
        sharing.apply("node-1", mps);
        Progress late = sharing.progress("node-1", mps, 8, Duration.ofMinutes(6));
        assertTrue(late instanceof Progress.Failed f && f.reason().contains("advertises 32 nvidia.com/gpu 360 s after Horizon set config horizon-mps-2, not 16"),
                late.toString());
        JsonNode both = YAML.valueToTree(client.configMaps().inNamespace("gpu-operator").withName("horizon-device-plugin-configs").get().getData());
        assertTrue(both.has("horizon-time-slicing-4") && both.has("horizon-mps-2"), both.toString());
    }
}
