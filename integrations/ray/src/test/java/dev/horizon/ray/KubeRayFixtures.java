package dev.horizon.ray;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * KubeRay's own samples and CRDs in ../shared/fixtures/kuberay beside the checkout (the folder holding mvnw); never
 * copied into the project. Tests that need them skip, saying so, when they are absent.
 */
public final class KubeRayFixtures {
    private KubeRayFixtures() {
    }

    public static Path kuberay() {
        Path checkout = Path.of("").toAbsolutePath();
        while (checkout != null && !Files.exists(checkout.resolve("mvnw"))) checkout = checkout.getParent();
        Path kuberay = checkout == null ? null : checkout.resolveSibling("shared").resolve("fixtures").resolve("kuberay");
        Assumptions.assumeTrue(kuberay != null && Files.isDirectory(kuberay.resolve("samples")),
                "skipped: the KubeRay fixtures are not at ../shared/fixtures/kuberay beside the checkout");
        return kuberay;
    }
}
