package dev.horizon.ray.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The GPUs one pod of a Ray head or worker group holds: whole GPUs, or a fraction of one (KAI's gpu-fraction
 * annotation, the only way KubeRay's samples share a GPU between pods).
 *
 * <p>Whole GPUs are the containers' {@code nvidia.com/gpu} limits (requests where a container gives no limit). Ray
 * advertises what {@code rayStartParams.num-gpus} or the group's {@code resources.GPU} says, else what the limit
 * gives; a group that advertises GPUs without a limit gets them planned all the same, since Ray places GPU work
 * there, and one that advertises more than its limit is refused because Ray would use GPUs the pod does not hold.
 */
public record RayPodAsk(double gpus) {
    static final String GPU_RESOURCE = "nvidia.com/gpu";
    /** KAI Scheduler's annotation for a pod's share of one GPU. */
    static final String GPU_FRACTION_ANNOTATION = "gpu-fraction";
    private static final Pattern WHOLE = Pattern.compile("\\d+");

    boolean any() {
        return gpus > 0;
    }

    boolean fractional() {
        return gpus > 0 && gpus < 1;
    }

    /** The ask of the group at {@code path} (headGroupSpec, workerGroupSpecs[i]). */
    public static RayPodAsk ofGroup(JsonNode group, String path) {
        JsonNode pod = group.path("template").path("spec");
        int limit = 0;
        for (String list : new String[] {"containers", "initContainers"}) {
            JsonNode containers = pod.path(list);
            for (int i = 0; i < containers.size(); i++) {
                int gpus = containerGpus(containers.get(i).path("resources"), path + ".template.spec." + list + "[" + i + "].resources");
                // an init container's GPUs are held before the main containers start, not beside them
                limit = list.equals("containers") ? limit + gpus : Math.max(limit, gpus);
            }
        }
        Integer advertised = advertised(group, path);
        if (advertised != null && limit > 0 && advertised > limit) {
            throw new RayTranslationException(path + ": advertises " + advertised + " GPUs to Ray but its containers hold " + limit
                    + " (" + GPU_RESOURCE + "); Ray would place work on GPUs the pod does not have, so raise the limit or lower num-gpus");
        }
        String fraction = group.path("template").path("metadata").path("annotations").path(GPU_FRACTION_ANNOTATION).asText(null);
        if (fraction != null) return fractionOf(fraction, limit, path);
        return new RayPodAsk(Math.max(limit, advertised == null ? 0 : advertised));
    }

    private static RayPodAsk fractionOf(String text, int limit, String path) {
        String field = path + ".template.metadata.annotations[" + GPU_FRACTION_ANNOTATION + "]";
        double fraction;
        try {
            fraction = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new RayTranslationException(field + ": '" + text + "' is not a number such as 0.5");
        }
        if (!(fraction > 0 && fraction < 1)) throw new RayTranslationException(field + ": must be between 0 and 1 (got " + text + ")");
        if (limit > 0) throw new RayTranslationException(field + ": a pod asks for either whole GPUs (" + GPU_RESOURCE + ") or a fraction, not both");
        return new RayPodAsk(fraction);
    }

    /** GPUs advertised to Ray by rayStartParams.num-gpus or resources.GPU; null when the group leaves it to the limit. */
    private static Integer advertised(JsonNode group, String path) {
        JsonNode numGpus = group.path("rayStartParams").path("num-gpus");
        JsonNode resource = group.path("resources").path("GPU");
        if (!numGpus.isMissingNode()) return whole(numGpus, path + ".rayStartParams[num-gpus]");
        if (!resource.isMissingNode()) return whole(resource, path + ".resources[GPU]");
        return null;
    }

    private static int containerGpus(JsonNode resources, String path) {
        boolean limits = resources.path("limits").isObject();
        JsonNode amounts = limits ? resources.path("limits") : resources.path("requests");
        String where = path + (limits ? ".limits" : ".requests");
        int gpus = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = amounts.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().contains("tpu")) throw new TpuNotScheduledException(where + "[" + e.getKey() + "]");
            if (e.getKey().equals(GPU_RESOURCE)) gpus += whole(e.getValue(), where + "[" + GPU_RESOURCE + "]");
        }
        return gpus;
    }

    private static int whole(JsonNode quantity, String field) {
        String text = quantity.asText().trim();
        if (!WHOLE.matcher(text).matches()) {
            throw new RayTranslationException(field + ": '" + text + "' is not a whole number; a pod holds whole GPUs");
        }
        return Integer.parseInt(text);
    }
}
