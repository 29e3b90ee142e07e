package dev.horizon.ray.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.horizon.kit.crd.SchemaExtraction;
import dev.horizon.ray.KubeRayFixtures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schemas shipped in the module are exactly KubeRay's CRD schemas cut as {@link SchemaExtraction} says. */
class ShippedRaySchemasTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyShippedSchemaIsCutFromItsCrd() throws IOException {
        Path crds = KubeRayFixtures.kuberay().resolve("crds");
        Path fresh = Path.of("target", "extracted-schemas");
        Files.createDirectories(fresh);
        List<String> stale = new ArrayList<>();
        for (RayKind kind : RayKind.values()) {
            Path crdFile = crds.resolve(RayKind.GROUP + "_" + kind.plural() + ".yaml");
            JsonNode crd = new YAMLMapper().readTree(crdFile.toFile());
            assertEquals(kind.kind(), crd.path("spec").path("names").path("kind").asText(), crdFile + " is the CRD of " + kind.kind());
            JsonNode expected = SchemaExtraction.trim(SchemaExtraction.openApiSchema(crd, RayKind.VERSION));
            JSON.writeValue(fresh.resolve(Path.of(kind.schemaResource()).getFileName().toString()).toFile(), expected);
            try (InputStream shipped = getClass().getResourceAsStream(kind.schemaResource())) {
                if (shipped == null || !JSON.readTree(shipped).equals(expected)) stale.add(kind.schemaResource() + " (from " + crdFile + ")");
            }
        }
        assertTrue(stale.isEmpty(), "shipped schemas differ from their CRDs: " + stale + "; copy the files of " + fresh
                + " into src/main/resources/dev/horizon/ray/schema/");
    }
}
