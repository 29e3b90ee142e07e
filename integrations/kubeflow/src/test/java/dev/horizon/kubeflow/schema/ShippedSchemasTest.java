package dev.horizon.kubeflow.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.horizon.api.crd.SchemaExtraction;
import dev.horizon.kubeflow.Fixtures;
import dev.horizon.kubeflow.translate.KubeflowKind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schemas shipped in the module are exactly the real CRDs' schemas cut as {@link SchemaExtraction} says. */
class ShippedSchemasTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyShippedSchemaIsCutFromItsCrd() throws IOException {
        Path fixtures = Fixtures.root();
        Path fresh = Path.of("target", "extracted-schemas");
        Files.createDirectories(fresh);
        List<String> stale = new ArrayList<>();
        for (KubeflowKind kind : KubeflowKind.values()) {
            Path crdFile = fixtures.resolve(kind.group().equals("kubeflow.org") ? "kubeflow-v1" : "kubeflow-trainer")
                    .resolve("crds").resolve(kind.group() + "_" + kind.plural() + ".yaml");
            JsonNode crd = new YAMLMapper().readTree(crdFile.toFile());
            assertEquals(kind.kind(), crd.path("spec").path("names").path("kind").asText(), crdFile + " is the CRD of " + kind.kind());
            JsonNode expected = SchemaExtraction.trim(SchemaExtraction.openApiSchema(crd, kind.version()));
            Path out = fresh.resolve(Path.of(kind.schemaResource()).getFileName().toString());
            JSON.writeValue(out.toFile(), expected);
            try (InputStream shipped = getClass().getResourceAsStream(kind.schemaResource())) {
                if (shipped == null || !JSON.readTree(shipped).equals(expected)) stale.add(kind.schemaResource() + " (from " + crdFile + ")");
            }
        }
        assertTrue(stale.isEmpty(), "shipped schemas differ from their CRDs: " + stale + "; copy the files of " + fresh
                + " into src/main/resources/dev/horizon/kubeflow/schema/");
    }
}
