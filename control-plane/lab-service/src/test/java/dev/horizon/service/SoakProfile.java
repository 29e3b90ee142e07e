package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * What `./horizon soak` runs on: an H2 file of its own in a temp dir (the soak reports its size), a virtual clock,
 * declared nodes, no full mode; retention of two days.
 */
public class SoakProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        Path dir;
        try {
            dir = Files.createTempDirectory("horizon-soak-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(java.io.File::delete);
            } catch (IOException e) {
                // a temp dir left behind
            }
        }));
        return Map.of("horizon.data-dir", dir.toString(), "quarkus.datasource.jdbc.url", "jdbc:h2:file:" + dir + "/horizon;WRITE_DELAY=0",
                "horizon.clock", "virtual", "horizon.nodes", "8xH100-80GB,8xH100-80GB", "horizon.planner.full-mode-seconds", "0",
                "horizon.retention.days", "2");
    }
}
