package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kit.GenericJob;
import dev.horizon.kit.HeldWorkload;
import dev.horizon.kit.JobWithOutcome;
import dev.horizon.kit.Release;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.translate.GpuAsk;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.Translator;
import dev.horizon.kubernetes.dra.NotReleasable;
import dev.horizon.kubernetes.release.PodRelease;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A Kubeflow job object (as JSON) seen through {@link GenericJob}: training-operator jobs and the
 * mpi-operator's v2beta1 MPIJob hold with {@code spec.runPolicy.suspend}, TrainJobs with {@code spec.suspend}. Placement is injected
 * as a required node affinity on kubernetes.io/hostname, added to every term the user already has, and, on nodes in
 * {@code dra} mode, as claims on exactly the planned devices ({@link PodRelease}).
 */
public record KubeflowJob(KubeflowKind kubeflowKind, ObjectNode object, Translator translator, PodRelease release)
        implements GenericJob, JobWithOutcome {
    /** The runtimePatches entry Horizon owns on a TrainJob. */
    static final String PATCH_MANAGER = "horizon.dev/scheduler";
    private static final Set<String> SUCCEEDED = Set.of("Succeeded", "Complete");

    @Override
    public String kind() {
        return kubeflowKind.kind();
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

    /**
     * Releases every GPU replica type onto its part of the plan: the replica types in order take the planned devices in
     * placement order, as many as their replicas times the devices each replica holds.
     */
    @Override
    public Release runOn(PlannedPlacement placement) {
        List<String> released = new ArrayList<>();
        if (kubeflowKind.hasReplicaSpecs()) {
            PlannedSlices slices = new PlannedSlices(placement.devices());
            for (Iterator<Map.Entry<String, JsonNode>> it = object.path("spec").path(kubeflowKind.replicaSpecsField()).fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> replicaType = it.next();
                JsonNode template = replicaType.getValue().path("template");
                if (!template.path("spec").isObject()) continue;
                PodRelease.restore((ObjectNode) template); // a template claimed by an earlier plan asks for its GPUs again
                GpuAsk ask = GpuAsk.ofPod(template.path("spec"), "");
                if (!ask.any()) continue;
                List<PlannedDevice> mine = slices.next(replicaType.getValue().path("replicas").asInt(1), ask);
                released.add(release.release(HeldWorkload.owner(object, kubeflowKind.kind()), replicaType.getKey(), (ObjectNode) template, mine, placement.nodes(), placement.migProfile()));
            }
        } else {
            if (placement.devices().stream().anyMatch(d -> d.gpuMode() == GpuMode.DRA)) {
                throw new NotReleasable("a TrainJob's pods come from its runtime, whose nvidia.com limits a runtime patch cannot take out for a claim;"
                        + " TrainJobs are released in device-plugin mode only, so plan it on a device-plugin pool (gpuTypes)");
            }
            patchTrainerStep(placement);
            released.add("trainer on " + String.join(",", placement.nodes()));
        }
        suspendHolder().put("suspend", false);
        return new Release(String.join(",", placement.nodes()), String.join("; ", released));
    }

    @Override
    public Optional<Boolean> succeeded() {
        return JobWithOutcome.fromConditions(object, SUCCEEDED);
    }

    private ObjectNode suspendHolder() {
        ObjectNode spec = KubeObjects.child(object, "spec");
        return kubeflowKind.hasReplicaSpecs() ? KubeObjects.child(spec, "runPolicy") : spec;
    }

    private void patchTrainerStep(PlannedPlacement placement) {
        ArrayNode patches = KubeObjects.child(object, "spec").withArray("runtimePatches");
        for (int i = patches.size() - 1; i >= 0; i--) {
            if (PATCH_MANAGER.equals(patches.get(i).path("manager").asText())) patches.remove(i);
        }
        ObjectNode step = patches.addObject().put("manager", PATCH_MANAGER).putObject("trainingRuntimeSpec").putObject("template").putObject("spec")
                .putArray("replicatedJobs").addObject().put("name", "node");
        ObjectNode pod = step.putObject("template").putObject("spec").putObject("template").putObject("spec");
        KubeObjects.pin(pod, placement.nodes());
    }
}
