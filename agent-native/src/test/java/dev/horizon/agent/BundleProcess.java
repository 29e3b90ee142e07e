package dev.horizon.agent;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the bundle tests share: where pre-integration-test left a bundle (or why it could not), and starting a
 * bundle's script the way a bare host would, with nothing on PATH: no JDK, not even the shell tools.
 */
final class BundleProcess {
    private BundleProcess() {}

    /** The bundle folder the build wrote; skips the test with bundle.sh's reason when this machine could not make one. */
    static Path built(String property) throws IOException {
        Path dir = Path.of(System.getProperty(property, "target/none"));
        Path skipped = dir.resolve("SKIPPED");
        assumeFalse(Files.exists(skipped), () -> "no bundle on this machine: " + read(skipped));
        return dir;
    }

    /** Starts {@code command} with only {@code env} set and PATH an empty folder, its output going to {@code log}. */
    static Process start(Path emptyPath, Path log, Map<String, String> env, List<String> command) throws IOException {
        Files.createDirectories(emptyPath);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        builder.environment().put("PATH", emptyPath.toString());
        return builder.start();
    }

    /** The size of everything under {@code dir}, in MiB. */
    static double mebibytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum() / (1024.0 * 1024.0);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
