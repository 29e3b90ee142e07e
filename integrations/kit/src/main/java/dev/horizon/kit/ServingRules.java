package dev.horizon.kit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Manifests;

/**
 * How the user bounds Horizon's sizing of a served workload, from its annotations: the fewest and most replicas, whether
 * Horizon writes the replica count or a HorizontalPodAutoscaler's bounds, and the service's value and swap cap. A bad
 * value is a {@link ManifestException} naming the annotation and what it takes.
 */
record ServingRules(int minReplicas, int maxReplicas, boolean byHpa, String hpa, double weightPerGpuHour, Integer swapCapGpus) {
    static final String MIN = "horizon.dev/min-replicas";
    /** Recorded from the replicas written when Horizon first sees the workload, so the bound is visible and editable. */
    static final String MAX = "horizon.dev/max-replicas";
    static final String SCALE_BY = "horizon.dev/scale-by";
    static final String HPA = "horizon.dev/hpa";
    static final String WEIGHT = "horizon.dev/weight-per-gpu-hour";
    static final String SWAP_CAP = "horizon.dev/swap-cap-gpus";
    /** One served GPU-hour's value when the workload does not say; the annotation sets it per service, against batch work's weights. */
    static final double DEFAULT_WEIGHT = 10;
    private static final int MOST = 10_000;

    static ServingRules of(JsonNode object) {
        int min = count(object, MIN, 1, 0);
        int max = count(object, MAX, Math.max(min, 1), 1);
        if (max < min) throw new ManifestException("annotation " + MAX + " (" + max + ") is below " + MIN + " (" + min + "); raise it or lower " + MIN);
        String scaleBy = Manifests.annotation(object, SCALE_BY);
        if (scaleBy != null && !scaleBy.equals("replicas") && !scaleBy.equals("hpa")) {
            throw new ManifestException("annotation " + SCALE_BY + ": \"replicas\" (Horizon writes the replica count) or \"hpa\" (Horizon writes the"
                    + " bounds of the HorizontalPodAutoscaler named by " + HPA + ", by default the workload's name); got \"" + scaleBy + "\"");
        }
        String hpa = Manifests.annotation(object, HPA);
        String weightText = Manifests.annotation(object, WEIGHT);
        double weight = DEFAULT_WEIGHT;
        if (weightText != null) {
            try {
                weight = Double.parseDouble(weightText);
            } catch (NumberFormatException e) {
                weight = -1;
            }
            if (!(weight > 0 && weight <= 1e6)) throw new ManifestException("annotation " + WEIGHT + ": a number above 0 and at most 1e6, the value of"
                    + " one served GPU-hour; got \"" + weightText + "\"");
        }
        Integer swapCap = Manifests.annotation(object, SWAP_CAP) == null ? null : count(object, SWAP_CAP, 1, 1);
        return new ServingRules(min, max, "hpa".equals(scaleBy), hpa == null ? Manifests.name(object) : hpa, weight, swapCap);
    }

    /** The replicas for a forecast: enough whole replicas for it, within the bounds. */
    int replicasFor(double forecastGpus, int gpusPerReplica) {
        int needed = (int) Math.ceil(forecastGpus / gpusPerReplica - 1e-9);
        return Math.max(minReplicas, Math.min(maxReplicas, needed));
    }

    /** The GPUs the service may gain or lose in one step: the annotation's, or its whole range (it may follow any rise). */
    int swapCapOr(int gpusPerReplica) {
        return swapCapGpus != null ? swapCapGpus : maxReplicas * gpusPerReplica;
    }

    private static int count(JsonNode object, String key, int absent, int least) {
        String text = Manifests.annotation(object, key);
        if (text == null) return absent;
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= least && n <= MOST) return n;
        } catch (NumberFormatException e) {
            // said below
        }
        throw new ManifestException("annotation " + key + ": a whole number from " + least + " to " + MOST + "; got \"" + text + "\"");
    }
}
