package dev.horizon.kubeflow.translate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.GpuShape;
import dev.horizon.api.MigProfiles;
import dev.horizon.kit.manifest.Accelerators;
import java.util.Iterator;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What one pod asks for in GPUs: whole GPUs ({@code nvidia.com/gpu}) or one MIG slice
 * ({@code nvidia.com/mig-<profile>}). Counted as Kubernetes counts a pod's effective request: the sum
 * over its containers, or the largest init container when that is more.
 */
public record GpuAsk(int gpus, String migProfile) {
    static final GpuAsk NONE = new GpuAsk(0, null);

    private static final Pattern WHOLE = Pattern.compile("\\d+");

    public boolean any() {
        return gpus > 0 || migProfile != null;
    }

    public GpuShape shape() {
        return migProfile != null ? new GpuShape(null, migProfile, null, null, null) : GpuShape.wholeGpus(gpus);
    }

    public String describe() {
        return migProfile != null ? "one " + migProfile + " MIG slice" : gpus + " GPU" + (gpus == 1 ? "" : "s");
    }

    /** The effective GPU request of a pod spec found at {@code path}. */
    public static GpuAsk ofPod(JsonNode podSpec, String path) {
        GpuAsk sum = NONE;
        JsonNode containers = podSpec.path("containers");
        for (int i = 0; i < containers.size(); i++) {
            sum = sum.plus(ofContainer(containers.get(i).path("resources"), path + ".containers[" + i + "].resources"), path);
        }
        JsonNode inits = podSpec.path("initContainers");
        for (int i = 0; i < inits.size(); i++) {
            GpuAsk init = ofContainer(inits.get(i).path("resources"), path + ".initContainers[" + i + "].resources");
            if (init.gpus > sum.gpus || (init.migProfile != null && sum.migProfile == null)) sum = init;
        }
        return sum;
    }

    /** The GPUs one container's resources ask for: its limits, or its requests where it gives no limit. */
    public static GpuAsk ofContainer(JsonNode resources, String path) {
        JsonNode amounts = resources.path("limits").isObject() ? resources.path("limits") : resources.path("requests");
        String where = path + (resources.path("limits").isObject() ? ".limits" : ".requests");
        GpuAsk ask = NONE;
        for (Iterator<Map.Entry<String, JsonNode>> it = amounts.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            String field = where + "[" + name + "]";
            if (name.equals(Accelerators.GPU_RESOURCE)) {
                ask = ask.plus(new GpuAsk(whole(e.getValue(), field), null), path);
            } else if (name.startsWith(Accelerators.MIG_PREFIX)) {
                String profile = name.substring(Accelerators.MIG_PREFIX.length());
                if (!MigProfiles.isKnown(profile)) {
                    throw new TranslationException(field + ": '" + profile + "' is not a MIG profile; use one of " + MigProfiles.known());
                }
                int count = whole(e.getValue(), field);
                if (count > 1) {
                    throw new TranslationException(field + ": asks for " + count + " MIG slices in one container; Horizon plans one slice per"
                            + " replica, so raise the replica count or use a larger profile");
                }
                if (count == 1) ask = ask.plus(new GpuAsk(0, profile), path);
            } else {
                Accelerators.refuseOther(name, field);
            }
        }
        return ask;
    }

    private GpuAsk plus(GpuAsk other, String path) {
        if (!other.any()) return this;
        if (!any()) return other;
        if (migProfile != null || other.migProfile != null) {
            throw new TranslationException(path + ": asks for " + describe() + " and " + other.describe() + " in one pod; Horizon plans"
                    + " either whole GPUs or one MIG slice per replica");
        }
        return new GpuAsk(gpus + other.gpus, null);
    }

    private static int whole(JsonNode quantity, String field) {
        String text = quantity.asText().trim();
        if (!WHOLE.matcher(text).matches()) {
            throw new TranslationException(field + ": '" + text + "' is not a whole number; GPUs and MIG slices are counted in whole units");
        }
        return Integer.parseInt(text);
    }
}
