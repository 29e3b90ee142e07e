package dev.horizon.ray.translate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.manifest.Accelerators;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The GPUs one pod of a Ray head or worker group holds: whole GPUs, or a fraction of one (KAI's gpu-fraction
 * annotation, the only way KubeRay's samples share a GPU between pods).
 *
 * <p>Whole GPUs are what Kubernetes gives the pod: its containers' {@code nvidia.com/gpu} limits (requests where a
 * container gives no limit). Ray advertises what {@code rayStartParams.num-gpus} or the group's {@code resources.GPU}
 * says, else what the limit gives; where the two differ Horizon plans the limit, since the pod holds no more and no
 * fewer GPUs whatever Ray is told, and the translation warns.
 *
 * @param gpus            the GPUs (or fraction of one) the pod holds
 * @param limit           the whole GPUs of its containers' limits
 * @param advertised      the GPUs the group advertises to Ray, or null when it leaves that to the limit
 * @param advertisedField where it advertises them ("spec.headGroupSpec.rayStartParams[num-gpus]")
 */
public record RayPodAsk(double gpus, int limit, Integer advertised, String advertisedField) {
    /** KAI Scheduler's annotation for a pod's share of one GPU. */
    static final String GPU_FRACTION_ANNOTATION = "gpu-fraction";
    private static final Pattern WHOLE = Pattern.compile("\\d+");

    public boolean any() {
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
        JsonNode numGpus = group.path("rayStartParams").path("num-gpus");
        JsonNode resource = group.path("resources").path("GPU");
        String advertisedField = !numGpus.isMissingNode() ? path + ".rayStartParams[num-gpus]"
                : !resource.isMissingNode() ? path + ".resources[GPU]" : null;
        Integer advertised = advertisedField == null ? null : whole(numGpus.isMissingNode() ? resource : numGpus, advertisedField);
        String fraction = group.path("template").path("metadata").path("annotations").path(GPU_FRACTION_ANNOTATION).asText(null);
        double gpus = fraction != null ? fractionOf(fraction, limit, path) : limit;
        return new RayPodAsk(gpus, limit, fraction != null ? null : advertised, advertisedField);
    }

    /** The warning when Ray is told of other GPUs than the pod holds. */
    Optional<String> mismatch() {
        if (advertised == null || advertised == limit) return Optional.empty();
        String consequence = advertised > limit ? "; Ray will place work on GPUs the pod does not have" : "; Ray uses only " + advertised + " of them";
        return Optional.of(advertisedField + ": advertises " + gpus(advertised) + " to Ray but the pod's " + Accelerators.GPU_RESOURCE + " limit is "
                + limit + "; Kubernetes gives the pod " + limit + ", so Horizon plans " + limit + consequence);
    }

    /** For a cluster refused as asking for no GPU: the GPUs Ray is told of that no limit backs, if any. */
    Optional<String> unbacked() {
        if (advertised == null || advertised == 0 || limit > 0) return Optional.empty();
        return Optional.of(advertisedField + " advertises " + gpus(advertised) + " to Ray without an " + Accelerators.GPU_RESOURCE
                + " limit, so Kubernetes gives that pod none");
    }

    private static String gpus(int n) {
        return n + " GPU" + (n == 1 ? "" : "s");
    }

    private static double fractionOf(String text, int limit, String path) {
        String field = path + ".template.metadata.annotations[" + GPU_FRACTION_ANNOTATION + "]";
        double fraction;
        try {
            fraction = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new RayTranslationException(field + ": '" + text + "' is not a number such as 0.5");
        }
        if (!(fraction > 0 && fraction < 1)) throw new RayTranslationException(field + ": must be between 0 and 1 (got " + text + ")");
        if (limit > 0) throw new RayTranslationException(field + ": a pod asks for either whole GPUs (" + Accelerators.GPU_RESOURCE + ") or a fraction, not both");
        return fraction;
    }

    private static int containerGpus(JsonNode resources, String path) {
        boolean limits = resources.path("limits").isObject();
        JsonNode amounts = limits ? resources.path("limits") : resources.path("requests");
        String where = path + (limits ? ".limits" : ".requests");
        int gpus = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = amounts.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String field = where + "[" + e.getKey() + "]";
            if (e.getKey().startsWith(Accelerators.MIG_PREFIX)) {
                throw new RayTranslationException(field + ": Horizon does not plan MIG slices for Ray pods yet; ask for whole GPUs ("
                        + Accelerators.GPU_RESOURCE + ") or a share with KAI's " + GPU_FRACTION_ANNOTATION + " annotation");
            }
            Accelerators.refuseOther(e.getKey(), field);
            if (e.getKey().equals(Accelerators.GPU_RESOURCE)) gpus += whole(e.getValue(), field);
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
