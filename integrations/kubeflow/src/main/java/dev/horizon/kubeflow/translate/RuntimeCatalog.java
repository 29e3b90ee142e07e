package dev.horizon.kubeflow.translate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.manifest.Manifests;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runtimes known from manifests (files given to the CLI, or documents beside a TrainJob in one file). */
public final class RuntimeCatalog implements RuntimeResolver {
    private final List<JsonNode> runtimes = new ArrayList<>();
    private final String defaultNamespace;

    public RuntimeCatalog(String defaultNamespace) {
        this.defaultNamespace = defaultNamespace;
    }

    /** Adds every runtime among the documents and returns the others. */
    public List<JsonNode> addRuntimesFrom(List<JsonNode> documents) {
        List<JsonNode> rest = new ArrayList<>();
        for (JsonNode doc : documents) {
            if (KubeflowKind.of(doc).filter(KubeflowKind::isRuntime).isPresent()) runtimes.add(doc);
            else rest.add(doc);
        }
        return rest;
    }

    @Override
    public Optional<JsonNode> find(KubeflowKind kind, String namespace, String name) {
        return runtimes.stream()
                .filter(r -> KubeflowKind.of(r).orElseThrow() == kind && name.equals(Manifests.name(r)))
                .filter(r -> !kind.namespaced() || namespace.equals(Manifests.namespace(r, defaultNamespace)))
                .findFirst();
    }
}
