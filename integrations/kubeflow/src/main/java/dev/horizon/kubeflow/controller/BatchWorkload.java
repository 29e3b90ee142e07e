package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
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
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.batch.BatchTranslator;
import dev.horizon.kubeflow.batch.PodGroups;
import dev.horizon.kubeflow.translate.GpuAsk;
import dev.horizon.kubernetes.dra.NotReleasable;
import dev.horizon.kubernetes.release.PodRelease;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A batch Job or JobSet held by {@code spec.suspend} and released through {@link PodRelease}, its GPU pod groups
 * ({@link PodGroups}, the order the translation counted them in) taking the planned devices in placement order.
 * Only their scheduling directives (node affinity, nodeSelector, tolerations) may change while suspended, so they are
 * released in device-plugin mode: a claim would change the GPU limits, which the API server refuses.
 */
record BatchWorkload(BatchKind batchKind, ObjectNode object, BatchTranslator translator, PodRelease release)
        implements GenericJob, JobWithOutcome {
    private static final Set<String> SUCCEEDED = Set.of("Complete", "Completed");

    BatchWorkload {
        if (!batchKind.suspendable()) throw new IllegalArgumentException(batchKind.sourceKind() + " has no spec.suspend to hold it by");
    }

    /**
     * Whether the Job or JobSet is Horizon's to hold: not one another workload controls (a JobSet's child Jobs, a
     * TrainJob's JobSet, an MPIJob's launcher Job are planned through their owner). A CronJob is no workload Horizon
     * holds, so the Jobs it makes are.
     */
    static boolean heldOnItsOwn(JsonNode object) {
        for (JsonNode owner : object.path("metadata").path("ownerReferences")) {
            if (owner.path("controller").asBoolean(false) && !"CronJob".equals(owner.path("kind").asText())) return false;
        }
        return true;
    }

    @Override
    public String kind() {
        return batchKind.sourceKind();
    }

    @Override
    public Translation translate() {
        return translator.translate(object);
    }

    @Override
    public Release runOn(PlannedPlacement placement) {
        if (placement.devices().stream().anyMatch(d -> d.gpuMode() == GpuMode.DRA)) {
            throw new NotReleasable("a suspended " + batchKind.kind() + " may change only its pods' scheduling directives, not their GPU limits, which a"
                    + " claim replaces; " + batchKind.kind() + "s are released in device-plugin mode only, so plan it on a device-plugin pool (gpuTypes)");
        }
        List<String> released = new ArrayList<>();
        PlannedSlices slices = new PlannedSlices(placement.devices());
        for (PodGroups.Group group : PodGroups.of(batchKind, object).groups()) {
            GpuAsk ask = GpuAsk.ofPod(group.template().path("spec"), "");
            if (!ask.any() || group.pods() == 0) continue;
            List<PlannedDevice> mine = slices.next(group.pods(), ask);
            released.add(release.release(HeldWorkload.owner(object, batchKind.kind()), group.name(), group.template(), mine, placement.nodes(), placement.migProfile()));
        }
        KubeObjects.child(object, "spec").put("suspend", false);
        return new Release(String.join(",", placement.nodes()), String.join("; ", released));
    }

    @Override
    public Optional<Boolean> succeeded() {
        return JobWithOutcome.fromConditions(object, SUCCEEDED);
    }
}
