package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.horizon.kit.crd.SchemaExtraction;
import dev.horizon.kubeflow.Fixtures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The schemas shipped in the module are exactly the real CRDs' schemas cut as {@link SchemaExtraction} says: the
 * training-operator's, the mpi-operator's v2beta1 MPIJob, and Trainer's kinds of every release.
 */
class ShippedSchemasTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyShippedSchemaIsCutFromItsCrd() throws IOException {
        Path fixtures = Fixtures.root();
        Path fresh = Path.of("target", "extracted-schemas");
        Files.createDirectories(fresh);
        List<String> stale = new ArrayList<>();
        for (KubeflowKind kind : KubeflowKind.values()) {
            for (String release : kind.schemaReleases()) {
                Path crdFile = crdFolder(fixtures, kind, release).resolve(kind.group() + "_" + kind.plural() + ".yaml");
                JsonNode crd = new YAMLMapper().readTree(crdFile.toFile());
                assertEquals(kind.kind(), crd.path("spec").path("names").path("kind").asText(), crdFile + " is the CRD of " + kind.kind());
                JsonNode expected = SchemaExtraction.trim(SchemaExtraction.openApiSchema(crd, kind.version()));
                String resource = kind.schemaResource(release);
                JSON.writeValue(fresh.resolve(Path.of(resource).getFileName().toString()).toFile(), expected);
                try (InputStream shipped = getClass().getResourceAsStream(resource)) {
                    if (shipped == null || !JSON.readTree(shipped).equals(expected)) stale.add(resource + " (from " + crdFile + ")");
                }
            }
        }
        assertTrue(stale.isEmpty(), "shipped schemas differ from their CRDs: " + stale + "; copy the files of " + fresh
                + " into src/main/resources/dev/horizon/kubeflow/schema/");
    }

    private static Path crdFolder(Path fixtures, KubeflowKind kind, String release) {
        if (kind.isTrainer()) return fixtures.resolve("kubeflow-trainer-releases").resolve("release-" + release).resolve("crds");
        return fixtures.resolve(kind == KubeflowKind.MPI_JOB_V2BETA1 ? "mpi-operator-v2beta1" : "kubeflow-v1").resolve("crds");
    }
}
