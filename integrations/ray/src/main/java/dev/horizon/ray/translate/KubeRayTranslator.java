package dev.horizon.ray.translate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.ray.demand.FractionalGpuPolicy;
import dev.horizon.ray.schema.RayCrdSchemas;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Turns one KubeRay RayCluster, RayJob or RayService into the scheduler jobs its GPU pods ask for, after checking it
 * against its CRD schema: one job for a head that holds GPUs and one for each worker group that does, because Horizon
 * plans one GPU shape per job and groups differ in shape.
 */
public final class KubeRayTranslator {
    public static final String CLASS_LABEL = "horizon.dev/class";
    /** Labels that name a team's queue in the schedulers KubeRay integrates with, tried in this order before the namespace. */
    public static final List<String> QUEUE_LABELS = List.of("kueue.x-k8s.io/queue-name", "volcano.sh/queue-name",
            "yunikorn.apache.org/queue", "kai.scheduler/queue");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String defaultNamespace;
    private final FractionalGpuPolicy fractionalPolicy;

    public KubeRayTranslator(String defaultNamespace, FractionalGpuPolicy fractionalPolicy) {
        this.defaultNamespace = defaultNamespace;
        this.fractionalPolicy = fractionalPolicy;
    }

    /** The Ray kind of a manifest, or empty for the ConfigMaps, Secrets and Services that samples ship beside it. */
    public static Optional<RayKind> kindOf(JsonNode manifest) {
        return RayKind.of(manifest.path("apiVersion").asText(), manifest.path("kind").asText());
    }

    public List<JobSpec> translate(JsonNode manifest) {
        RayKind kind = kindOf(manifest).orElseThrow(() -> new RayTranslationException(describe(manifest) + " (apiVersion '"
                + manifest.path("apiVersion").asText() + "') is not a KubeRay " + RayKind.API_VERSION + " RayCluster, RayJob or RayService"));
        List<String> problems = RayCrdSchemas.of(kind).problems(manifest);
        if (!problems.isEmpty()) {
            throw new RayTranslationException("does not match the " + RayKind.API_VERSION + " " + kind.kind() + " schema: " + String.join("; ", problems));
        }
        String name = name(manifest);
        if (name.isEmpty()) throw new RayTranslationException("metadata.name: is required (or metadata.generateName)");
        if (kind == RayKind.RAY_JOB && manifest.path("spec").has("clusterSelector")) {
            throw new RayTranslationException("spec.clusterSelector: the RayJob runs on an existing RayCluster, whose GPUs Horizon plans with"
                    + " that RayCluster; the RayJob itself creates no GPU pods");
        }
        JsonNode cluster = at(manifest, kind.clusterSpecPath());
        String namespace = manifest.path("metadata").path("namespace").asText("");
        if (namespace.isEmpty()) namespace = defaultNamespace;
        JobSource source = new JobSource(kind.kind(), namespace, name);
        String team = team(manifest, namespace);
        JobClass jobClass = jobClass(manifest, kind);

        List<JobSpec> jobs = new ArrayList<>();
        List<Double> podGpus = new ArrayList<>();
        String headPath = kind.clusterSpecPath() + ".headGroupSpec";
        RayPodAsk head = RayPodAsk.ofGroup(cluster.path("headGroupSpec"), headPath);
        podGpus.add(head.gpus());
        // the head is one pod that every worker needs; it is a gang of one whatever the kind
        if (head.any()) jobs.add(job(name + "-head", team, jobClass, 1, null, shape(head, headPath), true, source));
        boolean autoscaling = cluster.path("enableInTreeAutoscaling").asBoolean(false);
        JsonNode groups = cluster.path("workerGroupSpecs");
        for (int i = 0; i < groups.size(); i++) {
            JsonNode group = groups.get(i);
            String path = kind.clusterSpecPath() + ".workerGroupSpecs[" + i + "]";
            RayPodAsk ask = RayPodAsk.ofGroup(group, path);
            int hosts = group.path("numOfHosts").asInt(1);
            int min = group.path("minReplicas").asInt(0);
            // KubeRay creates `replicas` pods per host slot (minReplicas when replicas is unset); a suspended group creates none
            int pods = group.path("suspend").asBoolean(false) ? 0 : group.path("replicas").asInt(min) * hosts;
            if (pods > 0) podGpus.add(ask.gpus());
            if (!ask.any() || pods == 0) continue;
            // only the autoscaler takes a group down to minReplicas; without it KubeRay keeps every replica
            Integer elasticMin = autoscaling && min > 0 && min * hosts < pods ? min * hosts : null;
            jobs.add(job(name + "-" + group.path("groupName").asText("group-" + i), team, jobClass, pods, elasticMin, shape(ask, path),
                    kind.gang(), source));
        }
        if (jobs.isEmpty()) throw new NoGpuRequestedException("the cluster (" + kind.clusterSpecPath() + ")");
        if (kind == RayKind.RAY_JOB) checkEntrypoint(manifest.path("spec"), podGpus);
        return jobs;
    }

    private GpuShape shape(RayPodAsk ask, String path) {
        if (!ask.fractional()) return GpuShape.wholeGpus((int) ask.gpus());
        try {
            return fractionalPolicy.shareOf(ask.gpus(), null);
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
            if (e.getKey().toUpperCase(Locale.ROOT).contains("TPU")) throw new TpuNotScheduledException(field);
        }
    }

    /** The name, or the prefix the API server completes for a manifest made with generateName, without its trailing dash. */
    private static String name(JsonNode manifest) {
        String name = manifest.path("metadata").path("name").asText("");
        return name.isEmpty() ? manifest.path("metadata").path("generateName").asText("").replaceAll("-$", "") : name;
    }

    private static JsonNode at(JsonNode manifest, String dottedPath) {
        JsonNode node = manifest;
        for (String part : dottedPath.split("\\.")) node = node.path(part);
        return node;
    }

    /** The team that pays: the first queue label of {@link #QUEUE_LABELS}, else the namespace. */
    public static String team(JsonNode manifest, String namespace) {
        for (String label : QUEUE_LABELS) {
            String queue = manifest.path("metadata").path("labels").path(label).asText("");
            if (!queue.isBlank()) return queue;
        }
        return namespace;
    }

    /** The {@link #CLASS_LABEL} label's class, else the kind's default. */
    public static JobClass jobClass(JsonNode manifest, RayKind kind) {
        String label = manifest.path("metadata").path("labels").path(CLASS_LABEL).asText(null);
        if (label == null) return kind.defaultClass();
        try {
            return JobClass.valueOf(label.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new RayTranslationException("metadata.labels[" + CLASS_LABEL + "]: '" + label + "' is not one of "
                    + Arrays.stream(JobClass.values()).map(c -> c.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList());
        }
    }

    /** "RayJob ml/rayjob-sample" */
    public static String describe(JsonNode manifest) {
        String ns = manifest.path("metadata").path("namespace").asText("");
        return manifest.path("kind").asText("object") + " " + (ns.isEmpty() ? "" : ns + "/") + name(manifest);
    }
}
