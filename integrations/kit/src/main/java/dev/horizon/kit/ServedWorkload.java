package dev.horizon.kit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.NoGpuRequested;
import dev.horizon.kit.manifest.Translation;
import java.util.List;
import java.util.OptionalInt;

/**
 * One object of a kind that serves a model (an inference Deployment, a LeaderWorkerSet, a KServe InferenceService),
 * which {@link InferenceScaler} runs as a Horizon inference service: it sizes the replicas from the service's forecast,
 * writes the count, and says which GPUs they serve on. A replica is what the kind scales by: a pod, or a
 * LeaderWorkerSet's group of pods.
 */
public interface ServedWorkload {
    /** The object as JSON; the scaler writes it back after each change. */
    ObjectNode object();

    /** The kind as its owner names it ("Deployment"), in service names and messages. */
    String kind();

    /**
     * The real-time inference job its GPU pods ask for; {@link ManifestException} naming the field when it cannot be
     * planned, {@link NoGpuRequested} when it asks for no GPU (then it is not Horizon's).
     */
    Translation translate();

    /**
     * What one replica holds, from its translation: its GPU pods, each with the job's whole GPUs; a
     * {@link ManifestException} when its pods ask for MIG instances or shares (a service holds whole GPUs).
     */
    ReplicaShape shape(Translation translation);

    /** The replica count written on the object now. */
    int replicas();

    /** Writes the replica count Horizon sized. */
    void replicas(int count);

    /**
     * The most replicas the workload's own spec allows, recorded at first sight as {@code horizon.dev/max-replicas} (the
     * bound the user then edits): by default the replicas written; a kind with its own upper bound (a KubeRay worker
     * group's maxReplicas) says it here, since Horizon writes its bounds over once it sizes it.
     */
    default int mostReplicas() {
        return replicas();
    }

    /** The fewest replicas the workload's own spec asks for, recorded at first sight as {@code horizon.dev/min-replicas}; none by default. */
    default OptionalInt fewestReplicas() {
        return OptionalInt.empty();
    }

    /** The pod specs to pin to the nodes of the GPUs the replicas serve on. */
    List<ObjectNode> podSpecs();

    /**
     * Labels its pod templates {@link InferenceScaler#SERVICE}, so the scheduler extender leaves its pods to the nodes it
     * is pinned to (their GPUs are the service's); a kind whose operator labels its pods itself leaves this empty.
     */
    default void markPods(String service) {
    }
}
