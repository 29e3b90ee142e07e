package dev.horizon.kubernetes.release;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.kubernetes.GpuResources;
import dev.horizon.kubernetes.KubeJson;
import dev.horizon.kubernetes.dra.DeviceClaims;
import dev.horizon.kubernetes.dra.NotReleasable;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * Releases one pod template of a workload (a Kubeflow replica type, a Ray group) onto its part of the plan, the way the
 * nodes' GPU mode enforces it. {@code dra}: a claim on exactly its planned devices, and a required node affinity on their
 * nodes. {@code device-plugin} (and a control plane that gives no devices): the node affinity, the planned MIG profile's
 * {@code nvidia.com/mig-<profile>} resource; which GPUs of the node the pods get is the device plugin's choice. Each release
 * starts from the template as the user wrote it, so a workload preempted and planned again elsewhere changes mode cleanly.
 */
public final class PodRelease {
    private final DeviceClaims claims;

    public PodRelease(KubernetesClient kube) {
        this.claims = new DeviceClaims(kube);
    }

    /**
     * template: the pod template (metadata and spec); devices: this template's devices in placement order (may be empty);
     * nodes: the placement's nodes, used when there are no devices; migProfile: the planned profile of a MIG job. Returns a
     * sentence for the workload's event; NotReleasable or KubernetesRefusal when it cannot be released now.
     */
    public String release(DeviceClaims.Owner owner, String group, ObjectNode template, List<PlannedDevice> devices, List<String> nodes,
                          String migProfile) {
        List<String> onNodes = devices.isEmpty() ? nodes : devices.stream().map(PlannedDevice::node).distinct().toList();
        ObjectNode podSpec = KubeObjects.child(template, "spec");
        String how;
        if (mode(group, devices) == GpuMode.DRA) {
            how = claims.claim(owner, group, template, devices);
        } else {
            restore(template);
            if (migProfile != null) GpuResources.renameMig(podSpec, migProfile);
            how = migProfile != null ? "nvidia.com/mig-" + migProfile : "the device plugin's nvidia.com/gpu";
        }
        KubeObjects.pin(podSpec, onNodes);
        return group + " on " + String.join(",", onNodes) + " (" + how + ")";
    }

    /**
     * Puts a pod template back as the user wrote it: the GPU resources a claim took out, no Horizon claim. A release calls
     * it itself; an adapter calls it first to read what the pods ask for.
     */
    public static void restore(ObjectNode template) {
        GpuResources.restore(template, DeviceClaims.CLAIM);
        ObjectNode podSpec = KubeObjects.child(template, "spec");
        if (podSpec.path("resourceClaims").isArray()) {
            KubeJson.removeNamed(podSpec.withArray("resourceClaims"), DeviceClaims.CLAIM);
            if (podSpec.get("resourceClaims").isEmpty()) podSpec.remove("resourceClaims");
        }
    }

    /** The one mode of the template's devices; a template whose pods would straddle two modes cannot be released. */
    private static GpuMode mode(String group, List<PlannedDevice> devices) {
        List<GpuMode> modes = devices.stream().map(PlannedDevice::gpuMode).distinct().toList();
        if (modes.size() > 1) {
            throw new NotReleasable(group + ": its planned devices are on nodes of both GPU modes " + modes.stream().map(m -> m == null ? "none" : m.value())
                    .toList() + "; one pod template is released one way");
        }
        return modes.isEmpty() ? null : modes.get(0);
    }
}
