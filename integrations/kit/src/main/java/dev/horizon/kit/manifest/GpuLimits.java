package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * GPUs a container gives in its requests but not its limits: the API server refuses such a pod (an extended resource
 * cannot be overcommitted, so its limit must be set), so the workload would never start. Every adapter says so.
 */
public final class GpuLimits {
    private GpuLimits() {
    }

    /** One warning per container of the pod spec at {@code path} that asks for GPUs in its requests only. */
    public static List<String> requestsWithoutLimits(JsonNode podSpec, String path) {
        List<String> warnings = new ArrayList<>();
        for (String list : new String[] {"initContainers", "containers"}) {
            JsonNode containers = podSpec.path(list);
            for (int i = 0; i < containers.size(); i++) {
                warnings.addAll(ofResources(containers.get(i).path("resources"), path + "." + list + "[" + i + "].resources"));
            }
        }
        return warnings;
    }

    /** The warnings for one set of resources (a container's, a TrainJob's resourcesPerNode) found at {@code field}. */
    public static List<String> ofResources(JsonNode resources, String field) {
        List<String> warnings = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = resources.path("requests").fields(); it.hasNext(); ) {
            String name = it.next().getKey();
            boolean gpu = name.equals(Accelerators.GPU_RESOURCE) || name.startsWith(Accelerators.MIG_PREFIX);
            if (gpu && !resources.path("limits").has(name)) {
                warnings.add(field + ".requests[" + name + "]: GPUs in requests without limits; the API server refuses such a pod (an extended"
                        + " resource's limit must be set), so add limits[" + name + "] with the same count");
            }
        }
        return warnings;
    }
}
