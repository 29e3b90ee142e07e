package dev.horizon.kubeflow;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The real Kubeflow manifests and CRDs in ../shared/fixtures, found beside the checkout (the folder
 * holding mvnw); never copied into the project. Tests that need them skip, saying so, when absent.
 */
public final class Fixtures {
    private Fixtures() {
    }

    public static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) dir = dir.getParent();
        Path fixtures = dir == null ? null : dir.resolveSibling("shared").resolve("fixtures");
        Assumptions.assumeTrue(fixtures != null && Files.isDirectory(fixtures.resolve("kubeflow-v1")),
                "skipped: the Kubeflow fixtures are not at ../shared/fixtures beside the checkout");
        return fixtures;
    }
}
