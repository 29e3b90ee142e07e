package dev.horizon.ray.serving;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.ReplicaShape;
import dev.horizon.kit.ServedWorkload;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.RayPodAsk;
import dev.horizon.ray.translate.WorkerGroups;
import java.util.List;
import java.util.OptionalInt;

/**
 * A KubeRay RayService as the inference scaler sees it: Ray Serve's replicas run on the workers of its one GPU worker
 * group, so that group's replicas are the service's replicas (a replica of {@code numOfHosts} pods, held whole). Its
 * upper and lower bounds are the group's maxReplicas and minReplicas, recorded at first sight; Horizon then writes the
 * sized count as the group's replicas, minReplicas and maxReplicas alike, so neither KubeRay's clamp nor Ray's in-tree
 * autoscaler moves it off what Horizon holds GPUs for. A head with GPUs or a second GPU group has no place in that
 * rule and is said on the RayService, naming the field.
 */
public record ServedRayService(ObjectNode object, KubeRayTranslator translator) implements ServedWorkload {
    private static final String CLUSTER = "spec.rayClusterConfig";

    @Override
    public String kind() {
        return "RayService";
    }

    @Override
    public Translation translate() {
        return translator.translate(object);
    }

    @Override
    public ReplicaShape shape(Translation translation) {
        if (RayPodAsk.ofGroup(cluster().path("headGroupSpec"), CLUSTER + ".headGroupSpec").any()) {
            throw new ManifestException(CLUSTER + ".headGroupSpec: the head asks for GPUs; Horizon sizes a RayService by the replicas of its GPU"
                    + " worker group, where Ray Serve's replicas run, and a head is no replica: give the head no GPUs");
        }
        List<JobSpec> groups = translation.jobs();
        if (groups.size() > 1) {
            throw new ManifestException(CLUSTER + ".workerGroupSpecs: " + groups.size() + " groups ask for GPUs; Horizon sizes a RayService by one"
                    + " GPU worker group, so serve from one (the others may ask for CPUs only)");
        }
        GpuShape perPod = groups.get(0).perReplica();
        if (perPod.gpus() == null || perPod.migProfile() != null) {
            throw new ManifestException(groupPath() + ": its pods ask for a share of a GPU; Horizon scales inference services of whole GPUs"
                    + " (nvidia.com/gpu)");
        }
        return new ReplicaShape(gpuGroup().path("numOfHosts").asInt(1), perPod.gpus());
    }

    /** The group's replicas as KubeRay runs them (clamped to its bounds). */
    @Override
    public int replicas() {
        return WorkerGroups.replicas(gpuGroup(), groupPath());
    }

    @Override
    public void replicas(int count) {
        ObjectNode group = (ObjectNode) gpuGroup();
        group.put("replicas", count).put("minReplicas", count).put("maxReplicas", count);
    }

    /** The group's maxReplicas, when it writes one; else its replicas. */
    @Override
    public int mostReplicas() {
        JsonNode group = gpuGroup();
        return group.has("maxReplicas") ? group.path("maxReplicas").asInt() : replicas();
    }

    /** The group's minReplicas, when it asks for at least one (KubeRay's default is none, Horizon's one). */
    @Override
    public OptionalInt fewestReplicas() {
        int min = gpuGroup().path("minReplicas").asInt(0);
        return min >= 1 ? OptionalInt.of(min) : OptionalInt.empty();
    }

    @Override
    public List<ObjectNode> podSpecs() {
        return List.of(KubeObjects.child(template(), "spec"));
    }

    /** KubeRay labels a RayService's pods with its cluster, not the service; the label tells the scheduler extender they are served. */
    @Override
    public void markPods(String service) {
        KubeObjects.child(KubeObjects.child(template(), "metadata"), "labels").put(InferenceScaler.SERVICE, service);
    }

    private ObjectNode template() {
        return KubeObjects.child((ObjectNode) gpuGroup(), "template");
    }

    private JsonNode cluster() {
        return object.path("spec").path("rayClusterConfig");
    }

    /** The first running worker group whose pods ask for GPUs (a translated RayService has one). */
    private JsonNode gpuGroup() {
        return cluster().path("workerGroupSpecs").get(gpuGroupIndex());
    }

    private String groupPath() {
        return CLUSTER + ".workerGroupSpecs[" + gpuGroupIndex() + "]";
    }

    private int gpuGroupIndex() {
        JsonNode groups = cluster().path("workerGroupSpecs");
        for (int i = 0; i < groups.size(); i++) {
            JsonNode group = groups.get(i);
            if (!group.path("suspend").asBoolean(false) && RayPodAsk.ofGroup(group, CLUSTER + ".workerGroupSpecs[" + i + "]").any()) return i;
        }
        throw new ManifestException(CLUSTER + ".workerGroupSpecs: no worker group asks for GPUs; Horizon sizes a RayService by its GPU worker group");
    }
}
