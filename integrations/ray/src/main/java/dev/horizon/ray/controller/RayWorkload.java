package dev.horizon.ray.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kit.ComposableJob;
import dev.horizon.kit.Explanations;
import dev.horizon.kit.HeldWorkload;
import dev.horizon.kit.JobWithOutcome;
import dev.horizon.kit.Release;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubernetes.dra.DeviceClaims;
import dev.horizon.kubernetes.release.PodRelease;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.RayKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A RayJob or RayCluster object (as JSON) the controller holds and releases. Both hold with {@code spec.suspend}.
 * It is a {@link ComposableJob}: the translator makes one scheduler job per GPU group (head, each worker group), each
 * planned onto its own nodes, so placement is injected group by group, and only once every group is planned (KubeRay
 * tears the whole cluster down on suspend, so a partial cluster never runs). RayJob's status schema has no conditions (the
 * API server would prune one), so its explanation is an annotation; a RayCluster's is also a condition.
 */
record RayWorkload(RayKind rayKind, ObjectNode object, KubeRayTranslator translator, PodRelease release)
        implements ComposableJob, JobWithOutcome {
    @Override
    public String kind() {
        return rayKind.kind();
    }

    @Override
    public Translation translate() {
        return translator.translate(object);
    }

    @Override
    public Explanations explanations() {
        return rayKind == RayKind.RAY_JOB ? Explanations.ANNOTATION : Explanations.ANNOTATION_AND_CONDITION;
    }

    /** Releases every group onto its scheduler job's placement (claims on its planned devices in dra mode). */
    @Override
    public Release runOn(Map<String, PlannedPlacement> placementsByJobName) {
        Map<String, ObjectNode> templates = templatesByJobName();
        DeviceClaims.Owner owner = HeldWorkload.owner(object, rayKind.kind());
        List<String> parts = new ArrayList<>();
        placementsByJobName.forEach((name, p) -> {
            ObjectNode template = templates.get(name);
            if (template == null) throw new IllegalStateException("scheduler job " + name + " names no group of " + name());
            parts.add(release.release(owner, name.substring(name().length() + 1), template, p.devices(), p.nodes(), p.migProfile()));
        });
        KubeObjects.child(object, "spec").put("suspend", false);
        return new Release(String.join("; ", parts), "with " + String.join("; ", parts));
    }

    /**
     * How the RayJob ended, from KubeRay's jobDeploymentStatus; a RayCluster never ends on its own, so it is empty
     * until it is deleted.
     */
    @Override
    public Optional<Boolean> succeeded() {
        if (rayKind != RayKind.RAY_JOB) return Optional.empty();
        String deployment = object.path("status").path("jobDeploymentStatus").asText("");
        if (deployment.equals("Complete")) return Optional.of(!"FAILED".equals(object.path("status").path("jobStatus").asText()));
        if (deployment.equals("Failed")) return Optional.of(false);
        return Optional.empty();
    }

    private String name() {
        return object.path("metadata").path("name").asText();
    }

    /**
     * The pod template (metadata and spec) of each group by the name the translator gives its scheduler job: "NAME-head" for
     * the head and "NAME-GROUPNAME" for a worker group.
     */
    private Map<String, ObjectNode> templatesByJobName() {
        Map<String, ObjectNode> pods = new LinkedHashMap<>();
        JsonNode cluster = object;
        for (String part : rayKind.clusterSpecPath().split("\\.")) cluster = cluster.path(part);
        podSpec(cluster.path("headGroupSpec")).ifPresent(p -> pods.put(name() + "-head", p));
        JsonNode groups = cluster.path("workerGroupSpecs");
        for (int i = 0; i < groups.size(); i++) {
            String group = groups.get(i).path("groupName").asText("group-" + i);
            podSpec(groups.get(i)).ifPresent(p -> pods.put(name() + "-" + group, p));
        }
        return pods;
    }

    private static Optional<ObjectNode> podSpec(JsonNode group) {
        return group.path("template") instanceof ObjectNode template && template.path("spec").isObject() ? Optional.of(template) : Optional.empty();
    }
}
