package dev.horizon.kubernetes.dra;

import dev.horizon.kubernetes.KubernetesRefusal;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Reads the GPUs and MIG devices NVIDIA's DRA driver publishes (resource.k8s.io/v1 ResourceSlices of driver
 * {@code gpu.nvidia.com}), by node. A pool may span several slices and is republished with a higher generation when its
 * devices change: only the slices of each pool's newest generation count.
 */
public final class ResourceSlices {
    /** The driver name, which is also the domain of its attributes and the name of its whole-GPU DeviceClass. */
    public static final String DRIVER = "gpu.nvidia.com";
    public static final String MIG_DEVICE_CLASS = "mig.nvidia.com";

    private final KubernetesClient kube;

    public ResourceSlices(KubernetesClient kube) {
        this.kube = kube;
    }

    /** Every node's devices, nodes by name. */
    public Map<String, List<DraDevice>> byNode() {
        List<ResourceSlice> slices;
        try {
            slices = kube.resources(ResourceSlice.class).list().getItems();
        } catch (KubernetesClientException e) {
            throw KubernetesRefusal.of(e, "listing", "ResourceSlices (resource.k8s.io/v1)");
        }
        Map<String, Long> newest = new HashMap<>();
        for (ResourceSlice s : slices) {
            if (!ours(s)) continue;
            newest.merge(s.getSpec().getPool().getName(), generation(s), Math::max);
        }
        Map<String, List<DraDevice>> byNode = new TreeMap<>();
        for (ResourceSlice s : slices) {
            if (!ours(s) || generation(s) != newest.get(s.getSpec().getPool().getName()) || s.getSpec().getNodeName() == null) continue;
            for (Device d : Objects.requireNonNullElse(s.getSpec().getDevices(), List.<Device>of())) {
                byNode.computeIfAbsent(s.getSpec().getNodeName(), k -> new ArrayList<>()).add(device(s.getSpec().getNodeName(), d));
            }
        }
        byNode.values().forEach(list -> list.sort(Comparator.comparing(DraDevice::name)));
        return byNode;
    }

    /** The devices published for one node (none when the driver runs nowhere there). */
    public List<DraDevice> onNode(String node) {
        return byNode().getOrDefault(node, List.of());
    }

    private static boolean ours(ResourceSlice s) {
        return s.getSpec() != null && DRIVER.equals(s.getSpec().getDriver()) && s.getSpec().getPool() != null;
    }

    private static long generation(ResourceSlice s) {
        return Objects.requireNonNullElse(s.getSpec().getPool().getGeneration(), 0L);
    }

    private static DraDevice device(String node, Device d) {
        Map<String, DeviceAttribute> a = Objects.requireNonNullElse(d.getAttributes(), Map.of());
        return new DraDevice(node, d.getName(), text(a, "type"), text(a, "uuid"), text(a, "parentUUID"), text(a, "profile"), text(a, "productName"));
    }

    /** An attribute in the driver's domain: published as "uuid" or fully qualified as "gpu.nvidia.com/uuid". */
    private static String text(Map<String, DeviceAttribute> attributes, String name) {
        DeviceAttribute a = attributes.containsKey(name) ? attributes.get(name) : attributes.get(DRIVER + "/" + name);
        return a == null ? null : a.getString();
    }
}
