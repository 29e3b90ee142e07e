package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.integration.PlannedPlacement;
import dev.horizon.kit.GenericJob;
import dev.horizon.kit.HeldWorkload;
import dev.horizon.kit.JobHeldOnlyBeforeItRuns;
import dev.horizon.kit.JobWithOutcome;
import dev.horizon.kit.Release;
import dev.horizon.kit.WorkloadReconciler;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.batch.BatchTranslator;
import dev.horizon.kubeflow.translate.GpuAsk;
import dev.horizon.kubernetes.dra.NotReleasable;
import dev.horizon.kubernetes.release.PodRelease;
import java.util.Optional;

/**
 * A bare Pod held the upstream way, by a scheduling gate: created with {@value #GATE} in {@code spec.schedulingGates}
 * (by its author, or an admission webhook), it waits unscheduled while Horizon plans it; released, it is pinned to its
 * planned node (a gated pod's node affinity may be narrowed) and the gate removed. A gate can be removed but never added
 * back, so a preempted Pod is deleted ({@link JobHeldOnlyBeforeItRuns}). Its GPU limits cannot change once created, so
 * it is released in device-plugin mode only, and MIG only on the profile it asks for.
 */
record GatedPod(ObjectNode object, BatchTranslator translator, PodRelease release) implements GenericJob, JobWithOutcome, JobHeldOnlyBeforeItRuns {
    /** The scheduling gate that holds a Pod for Horizon. */
    static final String GATE = "horizon.dev/planned";

    /** Gated for Horizon, or already submitted by it; and not a pod another workload controls (a Job's, a ReplicaSet's). */
    static boolean held(JsonNode pod) {
        return BatchWorkload.heldOnItsOwn(pod) && (gated(pod) || pod.path("metadata").path("annotations").has(WorkloadReconciler.JOB_ID));
    }

    /** Whether the pod (or pod template) carries the gate. */
    static boolean gated(JsonNode pod) {
        for (JsonNode gate : pod.path("spec").path("schedulingGates")) if (GATE.equals(gate.path("name").asText())) return true;
        return false;
    }

    /** Removes the gate, and the list when it was the last: the pod is then the kube-scheduler's (or its schedulerName's) to bind. */
    static void ungate(ObjectNode pod) {
        ArrayNode gates = KubeObjects.child(pod, "spec").withArray("schedulingGates");
        for (int i = gates.size() - 1; i >= 0; i--) if (GATE.equals(gates.get(i).path("name").asText())) gates.remove(i);
        if (gates.isEmpty()) ((ObjectNode) pod.get("spec")).remove("schedulingGates");
    }

    @Override
    public String kind() {
        return BatchKind.POD.kind();
    }

    @Override
    public Translation translate() {
        return translator.translate(object);
    }

    @Override
    public boolean isSuspended() {
        return gated(object);
    }

    /** Gated already when first held (the reconciler holds only gated pods); the gate is never added to a pod that ran. */
    @Override
    public void suspend() {
        if (!gated(object)) KubeObjects.child(object, "spec").withArray("schedulingGates").addObject().put("name", GATE);
    }

    @Override
    public Release runOn(PlannedPlacement placement) {
        if (placement.devices().stream().anyMatch(d -> d.gpuMode() == GpuMode.DRA)) {
            throw new NotReleasable("a Pod's GPU limits cannot change once it is created, and a claim replaces them; bare Pods are released in"
                    + " device-plugin mode only, so plan it on a device-plugin pool (gpuTypes)");
        }
        GpuAsk ask = GpuAsk.ofPod(object.path("spec"), "");
        String released = release.release(HeldWorkload.owner(object, kind()), "pod", object, new PlannedSlices(placement.devices()).next(1, ask),
                placement.nodes(), placement.migProfile());
        ungate(object);
        return new Release(String.join(",", placement.nodes()), released);
    }

    @Override
    public Optional<Boolean> succeeded() {
        return switch (object.path("status").path("phase").asText()) {
            case "Succeeded" -> Optional.of(true);
            case "Failed" -> Optional.of(false);
            default -> Optional.empty();
        };
    }
}
