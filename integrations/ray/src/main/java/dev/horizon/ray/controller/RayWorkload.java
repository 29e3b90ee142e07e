package dev.horizon.ray.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.ray.translate.RayKind;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A RayJob, RayCluster or RayService object (as JSON) the controller holds and releases. All hold with {@code spec.suspend}.
 * Unlike a Kubeflow job it is not one {@code JobIntegration}: the translator makes one scheduler job per GPU group
 * (head, each worker group), each planned onto its own nodes, so placement is injected group by group.
 */
final class RayWorkload {
    private final RayKind kind;
    private final ObjectNode object;

    RayWorkload(RayKind kind, ObjectNode object) {
        this.kind = kind;
        this.object = object;
    }

    RayKind kind() {
        return kind;
    }

    ObjectNode object() {
        return object;
    }

    String name() {
        return object.path("metadata").path("name").asText();
    }

    boolean isSuspended() {
        return object.path("spec").path("suspend").asBoolean(false);
    }

    void setSuspended(boolean suspended) {
        KubeObjects.child(object, "spec").put("suspend", suspended);
    }

    /**
     * The pod template (metadata and spec) of each group by the name the translator gives its scheduler job: "NAME-head" for
     * the head and "NAME-GROUPNAME" for a worker group.
     */
    Map<String, ObjectNode> templatesByJobName() {
        Map<String, ObjectNode> pods = new LinkedHashMap<>();
        JsonNode cluster = object;
        for (String part : kind.clusterSpecPath().split("\\.")) cluster = cluster.path(part);
        podSpec(cluster.path("headGroupSpec")).ifPresent(p -> pods.put(name() + "-head", p));
        JsonNode groups = cluster.path("workerGroupSpecs");
        for (int i = 0; i < groups.size(); i++) {
            String group = groups.get(i).path("groupName").asText("group-" + i);
            podSpec(groups.get(i)).ifPresent(p -> pods.put(name() + "-" + group, p));
        }
        return pods;
    }

    /**
     * How the RayJob ended, from KubeRay's jobDeploymentStatus; a RayCluster never ends on its own, so it is empty
     * until it is deleted.
     */
    Optional<Boolean> succeeded() {
        if (kind != RayKind.RAY_JOB) return Optional.empty();
        String deployment = object.path("status").path("jobDeploymentStatus").asText("");
        if (deployment.equals("Complete")) return Optional.of(!"FAILED".equals(object.path("status").path("jobStatus").asText()));
        if (deployment.equals("Failed")) return Optional.of(false);
        return Optional.empty();
    }

    ObjectNode annotations() {
        return KubeObjects.child(KubeObjects.child(object, "metadata"), "annotations");
    }

    private static Optional<ObjectNode> podSpec(JsonNode group) {
        return group.path("template") instanceof ObjectNode template && template.path("spec").isObject() ? Optional.of(template) : Optional.empty();
    }
}
