package dev.horizon.kubeflow.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.crd.StructuralSchema;
import dev.horizon.kubeflow.translate.KubeflowKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.Map;

/**
 * The schemas shipped inside the module: each kind's openAPIV3Schema from the Kubeflow CRDs (Apache-2.0),
 * kept whole where Horizon reads and with the pod spec's other fields left open, so a cluster
 * without the fixtures still validates what it translates.
 */
public final class CrdSchemas {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<KubeflowKind, StructuralSchema> LOADED = new EnumMap<>(KubeflowKind.class);

    private CrdSchemas() {
    }

    public static synchronized StructuralSchema of(KubeflowKind kind) {
        return LOADED.computeIfAbsent(kind, k -> new StructuralSchema(read(k.schemaResource())));
    }

    private static JsonNode read(String resource) {
        try (InputStream in = CrdSchemas.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("the module ships no schema at " + resource + "; the build is broken");
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the shipped schema " + resource, e);
        }
    }
}
