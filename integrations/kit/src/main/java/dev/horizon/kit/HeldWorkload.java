package dev.horizon.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.NoGpuRequested;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubernetes.dra.DeviceClaims;

/**
 * One object of a kind an adapter holds until Horizon plans it (a PyTorchJob, a batch Job, a RayCluster), in the spirit
 * of Kueue's jobframework: the adapter wraps its own object and {@link WorkloadReconciler}, the one loop every kind goes
 * through, holds it suspended, submits the scheduler job(s) it asks for, releases it onto the plan and says why it waits.
 * A workload is either a {@link GenericJob} (one scheduler job) or a {@link ComposableJob} (several, released together);
 * what only some kinds have lives in the optional interfaces beside these ({@link JobWithOutcome},
 * {@link JobHeldOnlyBeforeItRuns}).
 */
public sealed interface HeldWorkload permits GenericJob, ComposableJob {
    /** The object as JSON; the reconciler writes it back after each change. */
    ObjectNode object();

    /** The kind as its owner names it ("PyTorchJob"), in keys and messages. */
    String kind();

    /**
     * The scheduler job(s) it asks for, with the warnings the reconciler records on the workload. Throws
     * {@link ManifestException} naming the field when it cannot be planned; one that is {@link NoGpuRequested} when it
     * asks for no GPU, so it is not Horizon's and its own scheduler runs it as it is.
     */
    Translation translate();

    /** Whether it is held; by default by {@code spec.suspend}, which most kinds have (Job, JobSet, TrainJob, KubeRay's). */
    default boolean isSuspended() {
        return object().path("spec").path("suspend").asBoolean(false);
    }

    /** Holds the workload: no pod runs until it is released. */
    default void suspend() {
        KubeObjects.child(object(), "spec").put("suspend", true);
    }

    /** The object's annotations, created empty when it has none. */
    default ObjectNode annotations() {
        return KubeObjects.child(KubeObjects.child(object(), "metadata"), "annotations");
    }

    /** Where the reconciler writes why the workload waits or runs: its status condition by default. */
    default Explanations explanations() {
        return Explanations.CONDITION;
    }

    /** The object as the owner of the claims made for it. */
    static DeviceClaims.Owner owner(JsonNode object, String kind) {
        JsonNode metadata = object.path("metadata");
        return new DeviceClaims.Owner(object.path("apiVersion").asText(), kind, metadata.path("namespace").asText(), metadata.path("name").asText(),
                metadata.path("uid").asText(null));
    }
}
