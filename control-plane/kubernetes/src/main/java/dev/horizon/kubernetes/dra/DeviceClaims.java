package dev.horizon.kubernetes.dra;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.kubernetes.GpuResources;
import dev.horizon.kubernetes.KubeJson;
import dev.horizon.kubernetes.KubernetesRefusal;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Releases the pods of one pod template onto exactly the planned devices through Dynamic Resource Allocation
 * (resource.k8s.io/v1). Whole GPUs and MIG instances: a ResourceClaimTemplate owned by the workload, one request per
 * container that asked for GPUs (its count), each selecting among the group's planned devices only, so every pod's claim
 * gets planned devices on the node it lands on and the group as a whole gets exactly the planned set. A time-slicing share:
 * one ResourceClaim per namespace and GPU that every pod sharing that GPU refers to, carrying NVIDIA's GpuConfig sharing
 * (time-slicing, or MPS with the thread percentage and pinned-memory limit). The containers' {@code nvidia.com} resources
 * come out (the claim gives the devices now) and are kept on the template for a later release.
 */
public final class DeviceClaims {
    /** The name the pod spec and its containers know Horizon's claim by. */
    public static final String CLAIM = "horizon-gpus";
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String WORKLOAD = "horizon.dev/workload";
    static final String GROUP = "horizon.dev/claim-group";
    static final String SHARED_REQUEST = "gpu";

    /** The workload the pods belong to, which owns the templates made for it. */
    public record Owner(String apiVersion, String kind, String namespace, String name, String uid) {
        String label() {
            return sanitize(kind + "." + name, 63);
        }
    }

    private final KubernetesClient kube;
    private final ResourceSlices slices;

    public DeviceClaims(KubernetesClient kube) {
        this.kube = kube;
        this.slices = new ResourceSlices(kube);
    }

    /**
     * Makes the pods of template (a pod template: metadata and spec) get exactly devices, all of one group of the workload.
     * Returns what it did, for the workload's event; NotReleasable when a device is not published yet or the pods of one
     * template would have to share devices they cannot, KubernetesRefusal when the API server refused an object.
     */
    public String claim(Owner owner, String group, ObjectNode template, List<PlannedDevice> devices) {
        if (devices.isEmpty()) throw new NotReleasable(group + ": the control plane gave no planned devices to claim");
        ObjectNode podSpec = KubeObjects.child(template, "spec");
        GpuResources.restore(template, CLAIM);
        Map<String, Integer> asks = GpuResources.perContainer(podSpec);
        String selector = DeviceSelectors.of(devices, slices.byNode());
        ObjectNode podClaim = JsonNodeFactory.instance.objectNode().put("name", CLAIM);
        String made;
        if (devices.get(0).shared()) {
            String claim = sharedClaim(owner.namespace(), devices, selector);
            podClaim.put("resourceClaimName", claim);
            attach(podSpec, asks.isEmpty() ? List.of(firstContainer(podSpec, group)) : List.copyOf(asks.keySet()), true);
            made = "ResourceClaim " + owner.namespace() + "/" + claim + " shared on " + devices.get(0).gpuUuid();
        } else {
            if (asks.isEmpty()) throw new NotReleasable(group + ": no container asks for nvidia.com/gpu or nvidia.com/mig-<profile>, so no claim can replace it");
            String name = template(owner, group, claimSpec(asks, devices.get(0).mig(), selector));
            podClaim.put("resourceClaimTemplateName", name);
            attach(podSpec, List.copyOf(asks.keySet()), false);
            made = "ResourceClaimTemplate " + owner.namespace() + "/" + name + " selecting " + devices.size() + " device" + (devices.size() == 1 ? "" : "s");
        }
        GpuResources.takeOut(template);
        ArrayNode podClaims = podSpec.withArray("resourceClaims");
        KubeJson.removeNamed(podClaims, CLAIM);
        podClaims.add(podClaim);
        return made;
    }

    private static DeviceClaim claimSpec(Map<String, Integer> asks, boolean mig, String selector) {
        DeviceClaimBuilder claim = new DeviceClaimBuilder();
        asks.forEach((container, count) -> claim.addToRequests(request(container, mig ? ResourceSlices.MIG_DEVICE_CLASS : ResourceSlices.DRIVER, count, selector)));
        return claim.build();
    }

    private static DeviceRequest request(String name, String deviceClass, long count, String selector) {
        return new DeviceRequestBuilder().withName(name).withNewExactly().withDeviceClassName(deviceClass).withAllocationMode("ExactCount")
                .withCount(count).addNewSelector().withNewCel().withExpression(selector).endCel().endSelector().endExactly().build();
    }

    /** Creates the group's template for this spec (named by its content, so an unchanged plan reuses it) and deletes older ones. */
    private String template(Owner owner, String group, DeviceClaim spec) {
        String name = sanitize(owner.name() + "-" + group, 244) + "-" + digest(spec.toString());
        ResourceClaimTemplate wanted = new ResourceClaimTemplateBuilder().withMetadata(new ObjectMetaBuilder().withName(name)
                        .withNamespace(owner.namespace()).addToLabels(MANAGED_BY, "horizon").addToLabels(WORKLOAD, owner.label())
                        .addToLabels(GROUP, sanitize(group, 63)).addNewOwnerReference().withApiVersion(owner.apiVersion()).withKind(owner.kind())
                        .withName(owner.name()).withUid(owner.uid()).withController(false).endOwnerReference().build())
                .withNewSpec().withNewSpec().withDevices(spec).endSpec().endSpec().build();
        var templates = kube.resources(ResourceClaimTemplate.class).inNamespace(owner.namespace());
        String what = "ResourceClaimTemplate " + owner.namespace() + "/" + name;
        try {
            if (templates.withName(name).get() == null) templates.resource(wanted).create();
            for (ResourceClaimTemplate old : templates.withLabel(WORKLOAD, owner.label()).withLabel(GROUP, sanitize(group, 63)).list().getItems()) {
                if (!old.getMetadata().getName().equals(name)) templates.withName(old.getMetadata().getName()).delete();
            }
        } catch (KubernetesClientException e) {
            throw KubernetesRefusal.of(e, "creating", what);
        }
        return name;
    }

    /** The namespace's claim on the one GPU these shares are on, made with that GPU's sharing when it does not exist yet. */
    private String sharedClaim(String namespace, List<PlannedDevice> shares, String selector) {
        String gpu = shares.get(0).gpuUuid();
        if (shares.stream().anyMatch(s -> !gpu.equals(s.gpuUuid()))) {
            throw new NotReleasable("in dra mode the pods of one template share one claim, so their shares must be on one GPU; the plan put them on "
                    + shares.stream().map(PlannedDevice::gpuUuid).distinct().toList());
        }
        String name = sanitize("horizon-share-" + gpu.replaceFirst("^(?i)gpu-", ""), 253);
        ResourceClaim claim = new ResourceClaimBuilder().withMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace)
                        .addToLabels(MANAGED_BY, "horizon").build())
                .withNewSpec().withNewDevices().addToRequests(request(SHARED_REQUEST, ResourceSlices.DRIVER, 1, selector))
                .addNewConfig().withRequests(SHARED_REQUEST).withNewOpaque().withDriver(ResourceSlices.DRIVER)
                .withParameters(SharingConfig.gpuConfig(shares.get(0).sharing())).endOpaque().endConfig().endDevices().endSpec().build();
        var claims = kube.resources(ResourceClaim.class).inNamespace(namespace);
        try {
            if (claims.withName(name).get() == null) claims.resource(claim).create();
        } catch (KubernetesClientException e) {
            throw KubernetesRefusal.of(e, "creating", "ResourceClaim " + namespace + "/" + name);
        }
        return name;
    }

    /** Each listed container gets Horizon's claim: its own request of the template, or the shared claim's one request. */
    private static void attach(ObjectNode podSpec, List<String> containers, boolean shared) {
        for (String list : List.of("containers", "initContainers")) {
            for (var c : podSpec.path(list)) {
                if (!(c instanceof ObjectNode container) || !containers.contains(container.path("name").asText())) continue;
                ArrayNode claims = KubeObjects.child(container, "resources").withArray("claims");
                KubeJson.removeNamed(claims, CLAIM);
                claims.addObject().put("name", CLAIM).put("request", shared ? SHARED_REQUEST : container.path("name").asText());
            }
        }
    }

    private static String firstContainer(ObjectNode podSpec, String group) {
        String name = podSpec.path("containers").path(0).path("name").asText("");
        if (name.isEmpty()) throw new NotReleasable(group + ": the pod template has no container to give the shared GPU to");
        return name;
    }

    /** A DNS-1123 name part: lower case, [a-z0-9-], no dash at either end, at most max characters. */
    static String sanitize(String value, int max) {
        String s = value.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-");
        if (s.length() > max) s = s.substring(0, max);
        return s.replaceAll("^-+|-+$", "");
    }

    private static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8))).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
