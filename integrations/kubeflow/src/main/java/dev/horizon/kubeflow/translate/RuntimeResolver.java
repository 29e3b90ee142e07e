package dev.horizon.kubeflow.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/** Finds the TrainingRuntime or ClusterTrainingRuntime a TrainJob's runtimeRef names. */
@FunctionalInterface
public interface RuntimeResolver {
    /** @param namespace the TrainJob's namespace; ignored for a ClusterTrainingRuntime */
    Optional<JsonNode> find(KubeflowKind kind, String namespace, String name);
}
