package dev.horizon.ray.translate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.Accelerators;
import dev.horizon.kit.manifest.GpuLimits;
import dev.horizon.kit.manifest.GpuModelTable;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.NodeSelection;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kit.manifest.Translation;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns one KubeRay RayCluster, RayJob or RayService into the scheduler jobs its GPU pods ask for, after checking it
 * against its CRD schema: one job for a head that holds GPUs and one for each worker group that does, because Horizon
 * plans one GPU shape per job and groups differ in shape.
 */
public final class KubeRayTranslator {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String defaultNamespace;
    private final FractionalGpuPolicy fractionalPolicy;
    private final TeamRule teams;
    private final GpuModelTable gpuModels;

    public KubeRayTranslator(String defaultNamespace, FractionalGpuPolicy fractionalPolicy, TeamRule teams, GpuModelTable gpuModels) {
        this.defaultNamespace = defaultNamespace;
        this.fractionalPolicy = fractionalPolicy;
        this.teams = teams;
        this.gpuModels = gpuModels;
    }

    /** With the shipped GPU model table. */
    public KubeRayTranslator(String defaultNamespace, FractionalGpuPolicy fractionalPolicy, TeamRule teams) {
        this(defaultNamespace, fractionalPolicy, teams, GpuModelTable.defaults());
    }

    public Translation translate(JsonNode manifest) {
        RayKind kind = RayKind.of(manifest).orElseThrow(() -> new RayTranslationException(Manifests.describe(manifest) + ": not a "
                + RayKind.READ.what()));
        List<String> warnings = new ArrayList<>(RayCrdSchemas.of(kind).check(manifest));
        String name = Manifests.nameOrPrefix(manifest);
        if (name.isEmpty()) throw new RayTranslationException("metadata.name: is required (or metadata.generateName)");
        Optional.ofNullable(Manifests.generateNameWarning(manifest)).ifPresent(warnings::add);
        if (kind == RayKind.RAY_JOB && manifest.path("spec").has("clusterSelector")) {
            throw new RayTranslationException("spec.clusterSelector: the RayJob runs on an existing RayCluster, whose GPUs Horizon plans with"
                    + " that RayCluster; the RayJob itself creates no GPU pods");
        }
        JsonNode cluster = at(manifest, kind.clusterSpecPath());
        String namespace = Manifests.namespace(manifest, defaultNamespace);
        JobSource source = new JobSource(kind.kind(), namespace, name);
        String team = teams.team(manifest, namespace);
        Optional<String> serve = kind == RayKind.RAY_CLUSTER ? RayServe.startedBy(cluster) : Optional.empty();
        JobClass jobClass = Manifests.jobClass(manifest, serve.isPresent() ? JobClass.REALTIME_INFERENCE : kind.defaultClass());
        boolean gang = kind.gang() && serve.isEmpty();
        serve.filter(s -> Manifests.label(manifest, Manifests.CLASS_LABEL) == null).ifPresent(s -> warnings.add(s + ": the cluster runs Ray Serve,"
                + " so Horizon plans it as real-time inference (its workers no gang); a RayService is the kind whose serving Horizon knows"));

        List<JobSpec> jobs = new ArrayList<>();
        List<RayPodAsk> pods = new ArrayList<>();
        String headPath = kind.clusterSpecPath() + ".headGroupSpec";
        RayPodAsk head = RayPodAsk.ofGroup(cluster.path("headGroupSpec"), headPath);
        pods.add(head);
        // the head is one pod that every worker needs; it is a gang of one whatever the kind
        if (head.any()) jobs.add(job(name + "-head", team, jobClass, 1, null, shape(head, headPath, cluster.path("headGroupSpec"), warnings), true, source));
        boolean autoscaling = cluster.path("enableInTreeAutoscaling").asBoolean(false);
        JsonNode groups = cluster.path("workerGroupSpecs");
        for (int i = 0; i < groups.size(); i++) {
            JsonNode group = groups.get(i);
            String path = kind.clusterSpecPath() + ".workerGroupSpecs[" + i + "]";
            RayPodAsk ask = RayPodAsk.ofGroup(group, path);
            int hosts = group.path("numOfHosts").asInt(1);
            int min = group.path("minReplicas").asInt(0);
            int count = WorkerGroups.pods(group, path, warnings);
            if (count > 0) pods.add(ask);
            if (!ask.any() || count == 0) continue;
            // only the autoscaler takes a group down to minReplicas; without it KubeRay keeps every replica
            Integer elasticMin = autoscaling && min > 0 && min * hosts < count ? min * hosts : null;
            jobs.add(job(name + "-" + group.path("groupName").asText("group-" + i), team, jobClass, count, elasticMin, shape(ask, path, group, warnings),
                    gang, source));
        }
        if (jobs.isEmpty()) {
            throw new NoGpuRequestedException("the cluster (" + kind.clusterSpecPath() + ")", pods.stream().flatMap(p -> p.unbacked().stream()).toList());
        }
        pods.forEach(p -> p.mismatch().ifPresent(warnings::add));
        if (kind == RayKind.RAY_JOB) checkEntrypoint(manifest.path("spec"), pods.stream().map(RayPodAsk::gpus).toList());
        return new Translation(jobs, warnings);
    }

    /** The shape of a group's pods, on the GPU models its node selection pins. */
    private GpuShape shape(RayPodAsk ask, String path, JsonNode group, List<String> warnings) {
        String podPath = path + ".template.spec";
        JsonNode pod = group.path("template").path("spec");
        warnings.addAll(GpuLimits.requestsWithoutLimits(pod, podPath));
        NodeSelection selection = NodeSelection.of(pod, podPath, gpuModels);
        warnings.addAll(selection.warnings());
        List<String> models = selection.models().orElse(null);
        if (!ask.fractional()) return GpuShape.wholeGpus((int) ask.gpus()).onModels(models);
        try {
            return fractionalPolicy.shareOf(ask.gpus(), null).onModels(models);
        } catch (IllegalArgumentException e) {
            throw new RayTranslationException(path + ": " + e.getMessage());
        }
    }

    private static JobSpec job(String name, String team, JobClass jobClass, int replicas, Integer minReplicas, GpuShape shape, boolean gang,
                               JobSource source) {
        JobSpec spec = new JobSpec(name, team, jobClass, null, replicas, minReplicas, shape, gang, null, null, null, source);
        List<String> problems = spec.problems();
        if (!problems.isEmpty()) throw new RayTranslationException("the scheduler job would be invalid: " + String.join("; ", problems));
        return spec;
    }

    /**
     * The entrypoint runs as a Ray task on one pod of the cluster the RayJob creates: a GPU ask that no pod can hold would
     * leave the job waiting forever after Horizon gave it its GPUs, so it is refused here, naming the field.
     */
    private static void checkEntrypoint(JsonNode spec, List<Double> podGpus) {
        double entrypointGpus = spec.path("entrypointNumGpus").asDouble(0);
        double largest = podGpus.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        if (entrypointGpus > largest) {
            throw new RayTranslationException("spec.entrypointNumGpus: the entrypoint asks for " + entrypointGpus + " GPUs but the largest pod of"
                    + " spec.rayClusterSpec holds " + largest + "; Ray could never start it");
        }
        String resources = spec.path("entrypointResources").asText(null);
        if (resources == null) return;
        JsonNode parsed;
        try {
            parsed = JSON.readTree(resources);
        } catch (JsonProcessingException e) {
            throw new RayTranslationException("spec.entrypointResources: not a JSON object such as {\"resource1\": 1}: " + e.getOriginalMessage());
        }
        if (!parsed.isObject()) throw new RayTranslationException("spec.entrypointResources: must be a JSON object such as {\"resource1\": 1}");
        for (Iterator<Map.Entry<String, JsonNode>> it = parsed.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String field = "spec.entrypointResources[" + e.getKey() + "]";
            if (!e.getValue().isNumber() || e.getValue().asDouble() < 0) throw new RayTranslationException(field + ": must be a number >= 0");
            if (e.getKey().equals("GPU") || e.getKey().equals("CPU")) {
                // Ray refuses these too: GPUs and CPUs of the entrypoint have their own fields
                throw new RayTranslationException(field + ": use entrypointNum" + (e.getKey().equals("GPU") ? "Gpus" : "Cpus") + " instead");
            }
            Accelerators.refuseOther(e.getKey(), field);
        }
    }

    private static JsonNode at(JsonNode manifest, String dottedPath) {
        JsonNode node = manifest;
        for (String part : dottedPath.split("\\.")) node = node.path(part);
        return node;
    }
}
