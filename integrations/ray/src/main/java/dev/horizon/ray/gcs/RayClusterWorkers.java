package dev.horizon.ray.gcs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.ray.controller.RayController;
import dev.horizon.ray.demand.PlacementStrategy;
import dev.horizon.ray.demand.RayDemandTranslator;
import dev.horizon.ray.translate.RayKind;
import dev.horizon.ray.translate.RayPodAsk;
import dev.horizon.ray.translate.RayTranslationException;
import dev.horizon.ray.translate.WorkerGroups;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker groups of one RayCluster, through which Horizon acts on the demand it planned: as Ray's autoscaler adds
 * nodes of a node type, Horizon raises a worker group's {@code replicas}, and pins the group's pod template to the
 * nodes it planned, so the pods KubeRay creates land there.
 */
public final class RayClusterWorkers {
    /** The scheduler job of each pending demand by demand key, as JSON; survives adapter restarts. */
    public static final String DEMAND_JOBS = "horizon.dev/gcs-demand-jobs";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double EPSILON = 1e-9;

    private final KubernetesClient kube;
    private final String namespace;
    private final String name;

    public RayClusterWorkers(KubernetesClient kube, String namespace, String name) {
        this.kube = kube;
        this.namespace = namespace;
        this.name = name;
    }

    /** "NAMESPACE/NAME", checked, as the command line gives it. */
    public static RayClusterWorkers of(KubernetesClient kube, String text, String field) {
        String[] parts = text.split("/", -1);
        if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
            throw new IllegalArgumentException(field + ": '" + text + "' is not NAMESPACE/NAME; name the RayCluster whose GCS is polled, such as ml/raycluster-gpu");
        }
        return new RayClusterWorkers(kube, parts[0], parts[1]);
    }

    public String namespace() {
        return namespace;
    }

    public String name() {
        return name;
    }

    /** The RayCluster as JSON; an error naming it when it is not there. */
    public ObjectNode read() {
        GenericKubernetesResource cluster = kube.genericKubernetesResources(RayController.context(RayKind.RAY_CLUSTER)).inNamespace(namespace)
                .withName(name).get();
        if (cluster == null) {
            throw new IllegalStateException("RayCluster " + namespace + "/" + name + " does not exist; Horizon acts on demand through its"
                    + " worker groups, so create it or point HORIZON_RAY_CLUSTER at the cluster whose GCS is polled");
        }
        return JSON.valueToTree(cluster);
    }

    /** The demand jobs recorded on the cluster by an earlier run; empty when there are none. */
    public static Map<String, DemandJob> recorded(ObjectNode cluster) {
        String text = cluster.path("metadata").path("annotations").path(DEMAND_JOBS).asText("");
        if (text.isEmpty()) return Map.of();
        try {
            return JSON.readValue(text, new TypeReference<LinkedHashMap<String, DemandJob>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(DEMAND_JOBS + " on RayCluster is not the JSON object of demand jobs Horizon wrote: " + e.getOriginalMessage(), e);
        }
    }

    /** Records the demand jobs on the cluster (read, change, update, so a concurrent edit fails rather than is lost). */
    public void record(Map<String, DemandJob> jobs) {
        ObjectNode cluster = read();
        try {
            KubeObjects.child(KubeObjects.child(cluster, "metadata"), "annotations").put(DEMAND_JOBS, JSON.writeValueAsString(jobs));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("demand jobs cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        kube.resource(JSON.convertValue(cluster, GenericKubernetesResource.class)).update();
    }

    /** Which worker group holds a demand, and how many more of its workers it takes. */
    public record Sizing(String group, int workers) {
    }

    /**
     * The worker group whose new workers hold {@code demand} within the group's maxReplicas with the fewest GPUs (a
     * worker holds all its GPUs whatever Ray puts on it), then the fewest workers, then the first group. The planned
     * nodes decide the GPU model, so only GPU counts are matched here.
     */
    public Sizing size(ObjectNode cluster, PendingDemand demand) {
        JsonNode groups = cluster.path("spec").path("workerGroupSpecs");
        Sizing best = null;
        double bestHeld = 0;
        for (int i = 0; i < groups.size(); i++) {
            JsonNode group = groups.get(i);
            String path = "spec.workerGroupSpecs[" + i + "]";
            double podGpus = RayPodAsk.ofGroup(group, path).gpus();
            int workers = workersFor(podGpus, demand);
            if (workers < 1) continue;
            if ((long) WorkerGroups.replicas(group, path) + workers > group.path("maxReplicas").asInt(Integer.MAX_VALUE)) continue;
            double held = workers * podGpus;
            if (best == null || held < bestHeld - EPSILON || (Math.abs(held - bestHeld) < EPSILON && workers < best.workers())) {
                best = new Sizing(group.path("groupName").asText("group-" + i), workers);
                bestHeld = held;
            }
        }
        if (best == null) {
            throw new RayTranslationException("no worker group of RayCluster " + namespace + "/" + name + " can hold " + demand.key()
                    + " within its maxReplicas; add a worker group whose pods hold that many GPUs, or raise maxReplicas");
        }
        return best;
    }

    /** Adds {@code workers} to the group's replicas and pins its pod template to {@code nodes}. */
    public void scale(String group, int workers, List<String> nodes) {
        ObjectNode cluster = read();
        JsonNode groups = cluster.path("spec").path("workerGroupSpecs");
        for (JsonNode spec : groups) {
            if (!group.equals(spec.path("groupName").asText())) continue;
            ((ObjectNode) spec).put("replicas", WorkerGroups.replicas(spec, "workerGroupSpecs[" + group + "]") + workers);
            KubeObjects.pin(KubeObjects.child(KubeObjects.child((ObjectNode) spec, "template"), "spec"), nodes);
            // update, not patch: the resourceVersion read above makes a concurrent edit fail here and be retried next poll
            kube.resource(JSON.convertValue(cluster, GenericKubernetesResource.class)).update();
            return;
        }
        throw new IllegalStateException("RayCluster " + namespace + "/" + name + " has no worker group '" + group + "' any more");
    }

    /** Workers of {@code podGpus} GPUs each that hold the demand's GPU requests; 0 when one worker cannot hold a request. */
    static int workersFor(double podGpus, PendingDemand demand) {
        if (podGpus <= 0) return 0;
        if (demand instanceof PendingDemand.Tasks t) return pack(podGpus, gpus(t.shape()), t.count());
        PendingDemand.Gang g = (PendingDemand.Gang) demand;
        List<Double> bundles = g.bundles().stream().map(RayClusterWorkers::gpus).filter(x -> x > 0).toList();
        if (g.strategy() == PlacementStrategy.STRICT_PACK) {
            return bundles.stream().mapToDouble(Double::doubleValue).sum() <= podGpus + EPSILON ? 1 : 0;
        }
        return pack(podGpus, bundles.stream().mapToDouble(Double::doubleValue).max().orElse(0), bundles.size());
    }

    private static int pack(double podGpus, double each, int count) {
        if (each <= 0 || each > podGpus + EPSILON) return 0;
        int perWorker = (int) Math.floor(podGpus / each + EPSILON);
        return (count + perWorker - 1) / perWorker;
    }

    private static double gpus(Map<String, Double> shape) {
        return shape.getOrDefault(RayDemandTranslator.GPU, 0.0);
    }
}
