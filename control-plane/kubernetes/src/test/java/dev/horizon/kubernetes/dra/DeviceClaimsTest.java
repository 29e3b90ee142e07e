package dev.horizon.kubernetes.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.PlannedDevice;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** DRA release against the fabric8 mock API server in CRUD mode, with ResourceSlices shaped as NVIDIA's DRA driver publishes them. */
@EnableKubernetesMockClient(crud = true)
class DeviceClaimsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DeviceClaims.Owner OWNER = new DeviceClaims.Owner("kubeflow.org/v1", "PyTorchJob", "ml", "llama", "uid-1");
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]+)\"");

    KubernetesClient client;
    private DeviceClaims claims;

    @BeforeEach
    void setUp() {
        DraCluster.node(client, "node-1", Map.of()).gpus(8).publish();
        DraCluster.node(client, "node-2", Map.of()).gpus(8).mig(0, "3g.40gb", 0, "MIG-static-0").mig(1, "3g.40gb", 4, null).publish();
        claims = new DeviceClaims(client);
    }

    private static ObjectNode template(String resource, int count) {
        ObjectNode template = JSON.createObjectNode();
        template.putObject("spec").putArray("containers").addObject().put("name", "pytorch").put("image", "x").putObject("resources")
                .putObject("limits").put(resource, count).put("cpu", "8");
        return template;
    }

    private static List<PlannedDevice> gpus(String node, int first, int count) {
        return IntStream.range(first, first + count).mapToObj(i -> PlannedDevice.wholeGpu(node, i, DraCluster.uuid(node, i), GpuMode.DRA)).toList();
    }

    private ResourceClaimTemplate onlyTemplate() {
        List<ResourceClaimTemplate> all = client.resources(ResourceClaimTemplate.class).inNamespace("ml").list().getItems();
        assertEquals(1, all.size(), "one template for the group: " + all);
        return all.get(0);
    }

    private static Set<String> quoted(String cel) {
        Set<String> out = new TreeSet<>();
        Matcher m = QUOTED.matcher(cel);
        while (m.find()) out.add(m.group(1));
        out.remove(ResourceSlices.DRIVER);
        return out;
    }

    @Test
    void wholeGpusAreClaimedByExactlyThePlannedUuidsAndTheGpuLimitMovesIntoTheClaim() {
        ObjectNode template = template("nvidia.com/gpu", 4);
        List<PlannedDevice> planned = new java.util.ArrayList<>(gpus("node-1", 0, 4));
        planned.addAll(gpus("node-2", 4, 4));
        claims.claim(OWNER, "Worker", template, planned);

        ResourceClaimTemplate made = onlyTemplate();
        assertEquals("PyTorchJob", made.getMetadata().getOwnerReferences().get(0).getKind());
        DeviceRequest request = made.getSpec().getSpec().getDevices().getRequests().get(0);
        assertEquals("pytorch", request.getName(), "one request per GPU container, named after it");
        assertEquals(4L, request.getExactly().getCount());
        assertEquals(ResourceSlices.DRIVER, request.getExactly().getDeviceClassName());
        String cel = request.getExactly().getSelectors().get(0).getCel().getExpression();
        Set<String> expected = new TreeSet<>(planned.stream().map(PlannedDevice::gpuUuid).toList());
        assertEquals(expected, quoted(cel), "the selector names the 8 planned GPUs and no other: " + cel);
        assertTrue(cel.contains("device.attributes[\"gpu.nvidia.com\"].uuid in ["), cel);

        JsonNode container = template.at("/spec/containers/0");
        assertFalse(container.at("/resources/limits").has("nvidia.com/gpu"), "the device plugin's resource is gone: the claim gives the GPUs");
        assertEquals("8", container.at("/resources/limits/cpu").asText(), "other resources stay");
        assertEquals("{\"name\":\"horizon-gpus\",\"request\":\"pytorch\"}", container.at("/resources/claims/0").toString());
        assertEquals(made.getMetadata().getName(), template.at("/spec/resourceClaims/0/resourceClaimTemplateName").asText());
    }

    @Test
    void aSecondReleaseStartsFromWhatTheUserWroteAndReplacesTheOldTemplate() {
        ObjectNode template = template("nvidia.com/gpu", 4);
        claims.claim(OWNER, "Worker", template, gpus("node-1", 0, 4));
        String first = onlyTemplate().getMetadata().getName();
        claims.claim(OWNER, "Worker", template, gpus("node-1", 4, 4));
        ResourceClaimTemplate second = onlyTemplate();
        assertFalse(second.getMetadata().getName().equals(first), "a new plan, a new template; the old one is deleted");
        assertEquals(4L, second.getSpec().getSpec().getDevices().getRequests().get(0).getExactly().getCount(), "counted from the restored limit");
        assertEquals(1, template.at("/spec/resourceClaims").size());
        assertEquals(1, template.at("/spec/containers/0/resources/claims").size());

        dev.horizon.kubernetes.GpuResources.restore(template, DeviceClaims.CLAIM);
        assertEquals(4, template.at("/spec/containers/0/resources/limits/nvidia.com~1gpu").asInt(), "restored for a device-plugin release");
        assertTrue(template.at("/spec/containers/0/resources/claims").isMissingNode());
    }

    @Test
    void aMigInstanceIsClaimedByItsUuidWhereTheDriverPublishesItElseByProfileAndParent() {
        ObjectNode template = template("nvidia.com/mig-3g.40gb", 1);
        PlannedDevice existing = new PlannedDevice("node-2", 0, DraCluster.uuid("node-2", 0), "3g.40gb", "MIG-static-0", null, null, GpuMode.DRA);
        PlannedDevice dynamic = new PlannedDevice("node-2", 1, DraCluster.uuid("node-2", 1), "3g.40gb", null, null, null, GpuMode.DRA);
        claims.claim(OWNER, "Worker", template, List.of(existing, dynamic));
        DeviceRequest request = onlyTemplate().getSpec().getSpec().getDevices().getRequests().get(0);
        assertEquals(ResourceSlices.MIG_DEVICE_CLASS, request.getExactly().getDeviceClassName());
        String cel = request.getExactly().getSelectors().get(0).getCel().getExpression();
        assertTrue(cel.contains(".uuid in [\"MIG-static-0\"]"), cel);
        assertTrue(cel.contains(".profile == \"3g.40gb\" && device.attributes[\"gpu.nvidia.com\"].parentUUID == \"" + DraCluster.uuid("node-2", 1) + "\""), cel);
        assertFalse(template.at("/spec/containers/0/resources/limits").has("nvidia.com/mig-3g.40gb"));
    }

    @Test
    void aDeviceTheDriverDoesNotPublishIsNotReleasedAndSaysWhich() {
        ObjectNode template = template("nvidia.com/gpu", 1);
        NotReleasable e = assertThrows(NotReleasable.class, () -> claims.claim(OWNER, "Worker", template,
                List.of(PlannedDevice.wholeGpu("node-1", 9, "GPU-not-there", GpuMode.DRA))));
        assertTrue(e.getMessage().contains("publishes no GPU GPU-not-there on node node-1"), e.getMessage());
        NotReleasable mig = assertThrows(NotReleasable.class, () -> claims.claim(OWNER, "Worker", template("nvidia.com/mig-1g.10gb", 1),
                List.of(new PlannedDevice("node-1", 0, DraCluster.uuid("node-1", 0), "1g.10gb", null, null, null, GpuMode.DRA))));
        assertTrue(mig.getMessage().contains("publishes no 1g.10gb MIG device on GPU " + DraCluster.uuid("node-1", 0)), mig.getMessage());
        assertEquals(0, client.resources(ResourceClaimTemplate.class).inNamespace("ml").list().getItems().size(), "nothing was written");
        assertEquals(1, template.at("/spec/containers/0/resources/limits/nvidia.com~1gpu").asInt(), "the pod template is left as it was");
    }

    @Test
    void sharesOfOneGpuInANamespaceShareOneClaimWithTheGpusMpsLimits() {
        PlannedDevice.Sharing mps = new PlannedDevice.Sharing("MPS", 4, 25, 20000L);
        PlannedDevice share = new PlannedDevice("node-1", 3, DraCluster.uuid("node-1", 3), null, null, new PlannedDevice.Share(250, 20000), mps, GpuMode.DRA);
        ObjectNode a = template("nvidia.com/gpu", 1);
        ObjectNode b = template("nvidia.com/gpu", 1);
        claims.claim(OWNER, "head", a, List.of(share));
        claims.claim(new DeviceClaims.Owner("ray.io/v1", "RayCluster", "ml", "other", "uid-2"), "workers", b, List.of(share, share));

        List<ResourceClaim> all = client.resources(ResourceClaim.class).inNamespace("ml").list().getItems();
        assertEquals(1, all.size(), "one claim for the GPU, shared by both workloads' pods");
        ResourceClaim claim = all.get(0);
        assertEquals(claim.getMetadata().getName(), a.at("/spec/resourceClaims/0/resourceClaimName").asText());
        assertEquals(claim.getMetadata().getName(), b.at("/spec/resourceClaims/0/resourceClaimName").asText());
        JsonNode config = JSON.valueToTree(claim.getSpec().getDevices().getConfig().get(0).getOpaque());
        assertEquals("gpu.nvidia.com", config.path("driver").asText());
        assertEquals("GpuConfig", config.at("/parameters/kind").asText());
        assertEquals("MPS", config.at("/parameters/sharing/strategy").asText());
        assertEquals(25, config.at("/parameters/sharing/mpsConfig/defaultActiveThreadPercentage").asInt());
        assertEquals("20000Mi", config.at("/parameters/sharing/mpsConfig/defaultPinnedDeviceMemoryLimit").asText());
        assertEquals(Set.of(DraCluster.uuid("node-1", 3)), quoted(claim.getSpec().getDevices().getRequests().get(0).getExactly().getSelectors().get(0)
                .getCel().getExpression()));

        PlannedDevice elsewhere = new PlannedDevice("node-1", 4, DraCluster.uuid("node-1", 4), null, null, share.share(), mps, GpuMode.DRA);
        NotReleasable spread = assertThrows(NotReleasable.class, () -> claims.claim(OWNER, "workers", template("nvidia.com/gpu", 1), List.of(share, elsewhere)));
        assertTrue(spread.getMessage().contains("must be on one GPU"), spread.getMessage());
    }
}
