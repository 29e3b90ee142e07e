package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.JobIntegration;
import dev.horizon.api.integration.JobWithOutcome;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.api.manifest.Accelerators;
import dev.horizon.api.manifest.Translation;
import dev.horizon.kubeflow.translate.GpuAsk;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.Translator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A Kubeflow job object (as JSON) seen through {@link JobIntegration}: training-operator jobs and the
 * mpi-operator's v2beta1 MPIJob hold with {@code spec.runPolicy.suspend}, TrainJobs with {@code spec.suspend}. Placement is injected
 * as a required node affinity on kubernetes.io/hostname, added to every term the user already has.
 */
public final class KubeflowJob implements JobIntegration, JobWithOutcome {
    /** The runtimePatches entry Horizon owns on a TrainJob. */
    static final String PATCH_MANAGER = "horizon.dev/scheduler";
    private static final Set<String> SUCCEEDED = Set.of("Succeeded", "Complete");

    private final KubeflowKind kind;
    private final ObjectNode object;
    private final Translator translator;

    public KubeflowJob(KubeflowKind kind, ObjectNode object, Translator translator) {
        this.kind = kind;
        this.object = object;
        this.translator = translator;
    }

    public ObjectNode object() {
        return object;
    }

    @Override
    public String kind() {
        return kind.kind();
    }

    @Override
    public Translation translate() {
        return translator.translate(object);
    }

    @Override
    public boolean isSuspended() {
        return suspendHolder().path("suspend").asBoolean(false);
    }

    @Override
    public void suspend() {
        suspendHolder().put("suspend", true);
    }

    @Override
    public void runOn(PlannedPlacement placement) {
        if (kind.hasReplicaSpecs()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = object.path("spec").path(kind.replicaSpecsField()).fields(); it.hasNext(); ) {
                JsonNode pod = it.next().getValue().path("template").path("spec");
                if (pod.isObject() && GpuAsk.ofPod(pod, "").any()) pin((ObjectNode) pod, placement);
            }
        } else {
            patchTrainerStep(placement);
        }
        suspendHolder().put("suspend", false);
    }

    @Override
    public Optional<Boolean> succeeded() {
        for (JsonNode c : object.path("status").path("conditions")) {
            if (!"True".equals(c.path("status").asText())) continue;
            String type = c.path("type").asText();
            if (SUCCEEDED.contains(type)) return Optional.of(true);
            if ("Failed".equals(type)) return Optional.of(false);
        }
        return Optional.empty();
    }

    void setCondition(String type, boolean status, String reason, String message, String now) {
        KubeObjects.setCondition(object, type, status, reason, message, now);
    }

    Optional<JsonNode> condition(String type) {
        return KubeObjects.condition(object, type);
    }

    private ObjectNode suspendHolder() {
        ObjectNode spec = KubeObjects.child(object, "spec");
        return kind.hasReplicaSpecs() ? KubeObjects.child(spec, "runPolicy") : spec;
    }

    private static void pin(ObjectNode podSpec, PlannedPlacement placement) {
        KubeObjects.pin(podSpec, placement.nodes());
        if (placement.migProfile() != null) renameMigResources(podSpec, placement.migProfile());
    }

    /** The plan may give a replica another profile than it asked for (a reconfigured GPU); its limits follow the plan. */
    private static void renameMigResources(ObjectNode podSpec, String profile) {
        for (String list : List.of("containers", "initContainers")) {
            for (JsonNode container : podSpec.path(list)) {
                for (String amounts : List.of("limits", "requests")) {
                    JsonNode node = container.path("resources").path(amounts);
                    if (!node.isObject()) continue;
                    ObjectNode resources = (ObjectNode) node;
                    List<String> mig = iterable(resources.fieldNames()).stream().filter(n -> n.startsWith(Accelerators.MIG_PREFIX)).toList();
                    for (String name : mig) resources.set(Accelerators.MIG_PREFIX + profile, resources.remove(name));
                }
            }
        }
    }

    private void patchTrainerStep(PlannedPlacement placement) {
        ArrayNode patches = KubeObjects.child(object, "spec").withArray("runtimePatches");
        for (int i = patches.size() - 1; i >= 0; i--) {
            if (PATCH_MANAGER.equals(patches.get(i).path("manager").asText())) patches.remove(i);
        }
        ObjectNode step = patches.addObject().put("manager", PATCH_MANAGER).putObject("trainingRuntimeSpec").putObject("template").putObject("spec")
                .putArray("replicatedJobs").addObject().put("name", "node");
        ObjectNode pod = step.putObject("template").putObject("spec").putObject("template").putObject("spec");
        pin(pod, new PlannedPlacement(placement.nodes(), null));
    }

    private static List<String> iterable(Iterator<String> names) {
        List<String> out = new ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }
}
