package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's build lock: two ./horizon commands that both find a module stale never build at once; the second says it
 * waits, then builds after the first is done. The launcher runs from a copy of itself beside a stand-in ./mvnw that logs
 * when each build begins and ends and takes two seconds, so no real build runs.
 */
class LauncherBuildLockTest {
    @Test
    void twoLaunchersNeverBuildAtOnceAndTheSecondSaysItWaits(@TempDir Path dir) throws Exception {
        assumeTrue(Stream.of(System.getenv("PATH").split(":")).anyMatch(p -> Files.isExecutable(Path.of(p, "flock"))),
                "flock (util-linux) is not installed: the launcher builds without its lock here");
        Files.copy(Horizon.ROOT.resolve("horizon"), dir.resolve("horizon"), StandardCopyOption.COPY_ATTRIBUTES);
        Path log = dir.resolve("builds.log");
        Files.writeString(dir.resolve("mvnw"), "#!/usr/bin/env bash\necho \"begins $$\" >> builds.log\nsleep 2\necho \"ends $$\" >> builds.log\n");
        assertTrue(dir.resolve("mvnw").toFile().setExecutable(true));
        // where the launcher touches its stamp once the build is done
        Files.createDirectories(dir.resolve("integrations/kubeflow/target"));

        Process first = translate(dir, "first");
        for (int i = 0; i < 100 && !(Files.exists(log) && Files.readString(log).contains("begins")); i++) Thread.sleep(100);
        assertTrue(Files.readString(log).contains("begins"), "the first launcher did not start its build");
        Process second = translate(dir, "second");
        assertTrue(first.waitFor(30, TimeUnit.SECONDS) && second.waitFor(30, TimeUnit.SECONDS), "the launchers did not finish within 30 s");

        List<String> builds = Files.readAllLines(log).stream().map(l -> l.split(" ")[0]).toList();
        assertEquals(List.of("begins", "ends", "begins", "ends"), builds, "the two builds overlapped: " + Files.readAllLines(log));
        assertTrue(Files.readString(dir.resolve("second.err")).contains("another ./horizon is building; waiting for it"),
                "the second launcher did not say it waits: " + Files.readString(dir.resolve("second.err")));
    }

    /** ./horizon translate kubeflow: it builds the Kubeflow integration first, its stamp being absent. */
    private static Process translate(Path dir, String name) throws IOException {
        return new ProcessBuilder(dir.resolve("horizon").toString(), "translate", "kubeflow", "/dev/null").directory(dir.toFile())
                .redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile()).start();
    }
}
