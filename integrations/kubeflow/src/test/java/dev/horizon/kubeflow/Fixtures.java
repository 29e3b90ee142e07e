package dev.horizon.kubeflow;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
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

    /** Every .yaml under the folder, CRDs left out, in a stable order. */
    public static List<Path> manifests(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(p -> p.toString().endsWith(".yaml") && !p.toString().contains("/crds/")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
