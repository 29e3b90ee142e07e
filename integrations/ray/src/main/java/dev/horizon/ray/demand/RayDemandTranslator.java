package dev.horizon.ray.demand;

import dev.horizon.api.GpuShape;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.Accelerators;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.NoGpuRequestedException;
import dev.horizon.ray.translate.RayTranslationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Turns pending Ray demand, as Ray's autoscaler sees it, into scheduler jobs: a resource shape ({@code {"CPU": 1,
 * "GPU": 0.5, "accelerator_type:A100": 0.001}}) wanted by some number of actors or tasks, or a placement group's
 * bundles with their strategy. Horizon plans the GPUs; CPU, memory and custom resources stay Ray's to match against
 * the nodes the RayCluster's worker groups provide.
 */
public final class RayDemandTranslator {
    public static final String GPU = "GPU";
    /** Ray adds 0.001 of this resource to a request made with accelerator_type=...; the rest of the name is the type. */
    public static final String ACCELERATOR_PREFIX = "accelerator_type:";

    private final FractionalGpuPolicy fractionalPolicy;
    private final Map<String, List<String>> acceleratorModels;

    /**
     * @param acceleratorModels Horizon's GPU models for each Ray accelerator type (Ray says "A100" where Horizon's
     *                          nodes say "A100-40GB" or "A100-80GB"); see {@link #DEFAULT_ACCELERATOR_MODELS}
     */
    public RayDemandTranslator(FractionalGpuPolicy fractionalPolicy, Map<String, List<String>> acceleratorModels) {
        this.fractionalPolicy = Objects.requireNonNull(fractionalPolicy);
        this.acceleratorModels = Map.copyOf(acceleratorModels);
    }

    /** Ray's names from ray.util.accelerators for the models Horizon knows. */
    public static final Map<String, List<String>> DEFAULT_ACCELERATOR_MODELS = Map.of(
            "A100", List.of("A100-40GB", "A100-80GB"),
            "A100-40G", List.of("A100-40GB"),
            "A100-80G", List.of("A100-80GB"),
            "H100", List.of("H100-80GB"),
            "H200", List.of("H200-141GB"));

    /**
     * {@code count} actors or tasks that each want {@code shape}: independent of each other, so not a gang; each
     * starts as soon as its own GPUs are planned.
     */
    public JobSpec tasks(DemandOwner owner, Map<String, Double> shape, int count) {
        if (count < 1) throw new RayTranslationException("count: pending demand counts at least one request (got " + count + ")");
        return job(owner, count, gpuShape(shape, "shape"), false, null);
    }

    /**
     * A placement group: Ray reserves all its bundles at once or none, so its GPU bundles are one gang; STRICT_PACK
     * puts them on one node. Bundles without GPUs are left to Ray beside the gang.
     */
    public JobSpec placementGroup(DemandOwner owner, List<Map<String, Double>> bundles, PlacementStrategy strategy) {
        if (strategy == PlacementStrategy.STRICT_SPREAD) {
            throw new RayTranslationException("strategy: STRICT_SPREAD needs every bundle on its own node, and Horizon's topologies (same-node,"
                    + " same-nvlink-domain, any) cannot say that yet; use SPREAD, which Ray also satisfies on fewer nodes");
        }
        GpuShape shape = null;
        int gpuBundles = 0;
        for (int i = 0; i < bundles.size(); i++) {
            String where = "bundles[" + i + "]";
            if (gpus(bundles.get(i), where) == 0) continue;
            GpuShape bundleShape = gpuShape(bundles.get(i), where);
            if (shape != null && !shape.equals(bundleShape)) {
                throw new RayTranslationException(where + ": asks for " + describe(bundleShape) + " but an earlier bundle asks for "
                        + describe(shape) + "; Horizon plans one GPU shape per job, so give every GPU bundle the same GPU ask");
            }
            shape = bundleShape;
            gpuBundles++;
        }
        if (shape == null) throw new NoGpuRequestedException("placement group " + owner.name(), List.of());
        return job(owner, gpuBundles, shape, true, strategy == PlacementStrategy.STRICT_PACK ? "same-node" : null);
    }

    private GpuShape gpuShape(Map<String, Double> shape, String where) {
        double gpus = gpus(shape, where);
        if (gpus == 0) throw new NoGpuRequestedException(where + " " + shape, List.of());
        List<String> models = acceleratorModels(shape, where);
        if (gpus >= 1) {
            if (gpus != Math.rint(gpus)) {
                throw new RayTranslationException(where + "[GPU]: " + gpus + " is above 1 and not whole; Ray accepts fractions of one GPU only");
            }
            return new GpuShape((int) gpus, null, null, null, models);
        }
        try {
            return fractionalPolicy.shareOf(gpus, models);
        } catch (IllegalArgumentException e) {
            throw new RayTranslationException(where + ": " + e.getMessage());
        }
    }

    private static double gpus(Map<String, Double> shape, String where) {
        for (String resource : shape.keySet()) {
            if (!resource.equals(GPU)) Accelerators.refuseOther(resource, where + "[" + resource + "]");
        }
        double gpus = shape.getOrDefault(GPU, 0.0);
        if (gpus < 0) throw new RayTranslationException(where + "[GPU]: must be >= 0 (got " + gpus + ")");
        return gpus;
    }

    private List<String> acceleratorModels(Map<String, Double> shape, String where) {
        List<String> types = shape.keySet().stream().filter(k -> k.startsWith(ACCELERATOR_PREFIX)).toList();
        if (types.isEmpty()) return null;
        if (types.size() > 1) throw new RayTranslationException(where + ": asks for several accelerator types " + types + "; Ray allows one");
        String type = types.get(0).substring(ACCELERATOR_PREFIX.length());
        List<String> models = acceleratorModels.get(type);
        if (models == null) {
            throw new RayTranslationException(where + "[" + types.get(0) + "]: Horizon knows no GPU model for Ray's accelerator type '" + type
                    + "'; known types: " + acceleratorModels.keySet().stream().sorted().toList());
        }
        return models;
    }

    private static JobSpec job(DemandOwner owner, int replicas, GpuShape shape, boolean gang, String topology) {
        JobSpec spec = new JobSpec(owner.name(), owner.team(), owner.jobClass(), null, replicas, null, shape, gang, topology, null, null,
                owner.source());
        List<String> problems = new ArrayList<>(spec.problems());
        if (!problems.isEmpty()) throw new RayTranslationException("the scheduler job would be invalid: " + String.join("; ", problems));
        return spec;
    }

    private static String describe(GpuShape shape) {
        if (shape.gpus() != null) return shape.gpus() + " GPU" + (shape.gpus() == 1 ? "" : "s");
        if (shape.migProfile() != null) return "a " + shape.migProfile() + " MIG slice";
        return shape.gpuMilli() + "/1000 of a GPU";
    }
}
