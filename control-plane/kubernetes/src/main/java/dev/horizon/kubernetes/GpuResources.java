package dev.horizon.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The device plugin's GPU resources in a pod template's containers ({@code nvidia.com/gpu}, {@code nvidia.com/mig-<profile>})
 * and the edits releasing a pod makes to them. Claiming devices through DRA takes them out of the containers; the template
 * keeps what they were in its {@code horizon.dev/gpu-resources} annotation, so a later release in device-plugin mode (or of
 * another plan) starts again from what the user wrote.
 */
public final class GpuResources {
    /** The device plugin's whole-GPU resource. */
    public static final String GPU = "nvidia.com/gpu";
    /** The device plugin's MIG resources: this prefix and the profile ("nvidia.com/mig-1g.10gb"). */
    public static final String MIG_PREFIX = "nvidia.com/mig-";
    /** On the pod template: container name to its original GPU limits and requests, as JSON. */
    public static final String SAVED = "horizon.dev/gpu-resources";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> CONTAINER_LISTS = List.of("containers", "initContainers");
    private static final List<String> AMOUNTS = List.of("limits", "requests");

    private GpuResources() {
    }

    public static boolean isGpuResource(String name) {
        return name.equals(GPU) || name.startsWith(MIG_PREFIX);
    }

    /** Container name to the GPUs (or MIG slices) it asks for: its limits, else its requests; containers asking none left out. */
    public static Map<String, Integer> perContainer(ObjectNode podSpec) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (ObjectNode container : containers(podSpec)) {
            JsonNode resources = container.path("resources");
            JsonNode amounts = resources.path("limits").isObject() ? resources.path("limits") : resources.path("requests");
            int count = 0;
            for (String name : names(amounts)) {
                if (isGpuResource(name)) count += amounts.get(name).asInt(0);
            }
            if (count > 0) out.put(container.path("name").asText(), count);
        }
        return out;
    }

    /** Puts back the GPU resources a claim took out (nothing when none were taken) and drops Horizon's container claims. */
    public static void restore(ObjectNode template, String claimName) {
        ObjectNode annotations = KubeObjects.child(KubeObjects.child(template, "metadata"), "annotations");
        JsonNode saved = annotations.has(SAVED) ? KubeJson.read(annotations.get(SAVED).asText()) : JSON.createObjectNode();
        for (ObjectNode container : containers(KubeObjects.child(template, "spec"))) {
            if (container.path("resources").path("claims") instanceof ArrayNode claims) {
                KubeJson.removeNamed(claims, claimName);
                if (claims.isEmpty()) ((ObjectNode) container.get("resources")).remove("claims");
            }
            JsonNode mine = saved.path(container.path("name").asText());
            for (String amounts : AMOUNTS) {
                if (mine.path(amounts).isObject()) KubeObjects.child(KubeObjects.child(container, "resources"), amounts).setAll((ObjectNode) mine.get(amounts));
            }
        }
        annotations.remove(SAVED);
    }

    /** Takes the GPU resources out of every container (a claim gives them now), keeping them in the template's annotation. */
    public static void takeOut(ObjectNode template) {
        ObjectNode saved = JSON.createObjectNode();
        for (ObjectNode container : containers(KubeObjects.child(template, "spec"))) {
            for (String amounts : AMOUNTS) {
                if (!(container.path("resources").path(amounts) instanceof ObjectNode resources)) continue;
                for (String name : names(resources)) {
                    if (!isGpuResource(name)) continue;
                    KubeObjects.child(KubeObjects.child(saved, container.path("name").asText()), amounts).set(name, resources.remove(name));
                }
            }
        }
        if (!saved.isEmpty()) KubeObjects.child(KubeObjects.child(template, "metadata"), "annotations").put(SAVED, saved.toString());
    }

    /** The plan may give a replica another profile than it asked for (a reconfigured GPU): MIG resources follow the plan. */
    public static void renameMig(ObjectNode podSpec, String profile) {
        for (ObjectNode container : containers(podSpec)) {
            for (String amounts : AMOUNTS) {
                if (!(container.path("resources").path(amounts) instanceof ObjectNode resources)) continue;
                for (String name : names(resources)) {
                    if (name.startsWith(MIG_PREFIX)) resources.set(MIG_PREFIX + profile, resources.remove(name));
                }
            }
        }
    }

    static List<ObjectNode> containers(ObjectNode podSpec) {
        List<ObjectNode> out = new ArrayList<>();
        for (String list : CONTAINER_LISTS) {
            for (JsonNode c : podSpec.path(list)) {
                if (c instanceof ObjectNode o) out.add(o);
            }
        }
        return out;
    }

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) out.add(it.next());
        return out;
    }
}
