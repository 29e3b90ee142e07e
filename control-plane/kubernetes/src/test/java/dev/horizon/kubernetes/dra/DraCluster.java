package dev.horizon.kubernetes.dra;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node of the fabric8 mock API server with the ResourceSlice NVIDIA's DRA driver would publish for it: whole GPUs
 * (gpu-N: type gpu, uuid, productName, ...) and static MIG devices (gpu-N-mig-P-S-Z: type mig, uuid, parentUUID, profile).
 * Used by the tests of every module that releases through DRA.
 */
public final class DraCluster {
    private final KubernetesClient kube;
    private final String node;
    private final List<Device> devices = new ArrayList<>();
    private long generation = 1;

    private DraCluster(KubernetesClient kube, String node) {
        this.kube = kube;
        this.node = node;
    }

    /** Creates the Kubernetes node (with labels) and starts its slice. */
    public static DraCluster node(KubernetesClient kube, String node, Map<String, String> labels) {
        kube.nodes().resource(new NodeBuilder().withNewMetadata().withName(node).withLabels(new LinkedHashMap<>(labels)).endMetadata().build()).create();
        return new DraCluster(kube, node);
    }

    /** The UUID the fixtures give GPU index on node, as the simulated driver names GPUs. */
    public static String uuid(String node, int index) {
        return "GPU-" + node + "-" + index;
    }

    /** GPUs 0 to count-1. */
    public DraCluster gpus(int count) {
        for (int i = 0; i < count; i++) gpu(i);
        return this;
    }

    public DraCluster gpu(int index) {
        devices.add(new DeviceBuilder().withName("gpu-" + index).withAttributes(attributes("gpu", uuid(node, index), null, null)).build());
        return this;
    }

    /** A MIG device as static MIG publishes it (uuid set), or as dynamic MIG does (migUuid null). */
    public DraCluster mig(int gpu, String profile, int start, String migUuid) {
        devices.add(new DeviceBuilder().withName("gpu-" + gpu + "-mig-" + profile.replace(".", "") + "-" + start)
                .withAttributes(attributes("mig", migUuid, uuid(node, gpu), profile)).build());
        return this;
    }

    /** Publishes the slice (a higher generation each time, replacing the last). */
    public DraCluster publish() {
        String name = node + "-gpu.nvidia.com-" + generation;
        kube.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class).resource(new ResourceSliceBuilder().withNewMetadata().withName(name)
                .endMetadata().withNewSpec().withDriver(ResourceSlices.DRIVER).withNodeName(node).withNewPool().withName(node).withGeneration(generation)
                .withResourceSliceCount(1L).endPool().withDevices(List.copyOf(devices)).endSpec().build()).create();
        generation++;
        return this;
    }

    private static Map<String, DeviceAttribute> attributes(String type, String uuid, String parent, String profile) {
        Map<String, DeviceAttribute> a = new LinkedHashMap<>();
        a.put("type", text(type));
        if (uuid != null) a.put("uuid", text(uuid));
        if (parent != null) a.put("parentUUID", text(parent));
        if (profile != null) a.put("profile", text(profile));
        a.put("productName", text("NVIDIA H100 80GB HBM3"));
        a.put("architecture", text("Hopper"));
        a.put("cudaComputeCapability", new DeviceAttributeBuilder().withVersion("9.0.0").build());
        return a;
    }

    private static DeviceAttribute text(String value) {
        return new DeviceAttributeBuilder().withString(value).build();
    }
}
