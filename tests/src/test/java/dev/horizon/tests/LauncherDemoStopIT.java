package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code ./horizon demo --keep-logs} stopped with SIGTERM (Ctrl-C in a terminal) once its agents run: the logs it keeps
 * hold no fault. Its processes were all sent SIGTERM at once, so the control plane, which stops in half a second, was
 * gone while the agents were still stopping, and each agent warned that the control plane was unreachable. Its output
 * went to a file, where the progress lines once were one line of carriage returns.
 */
class LauncherDemoStopIT {
    @Test
    void aStoppedDemoLeavesLogsWithoutAFault() throws Exception {
        Path dir = Files.createTempDirectory("horizon-demo-stop");
        Path summary = dir.resolve("summary.json");
        ProcessBuilder pb = new ProcessBuilder(Horizon.ROOT.resolve("horizon").toString(), "demo", "--keep-logs", "--summary", summary.toString())
                .directory(Horizon.ROOT.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("demo.log").toFile());
        pb.environment().put("TMPDIR", dir.toString());
        Process demo = pb.start();
        try {
            Path running = Path.of(summary + ".running");
            Horizon.await("the demo's day starting", 600, dir, () -> Files.exists(running), started -> started);
            Properties where = new Properties();
            try (var in = Files.newBufferedReader(running)) {
                where.load(in);
            }
            Path kept = Path.of(where.getProperty("tmp"));
            demo.destroy();
            assertTrue(demo.waitFor(20, TimeUnit.SECONDS), "the demo stopped within 20 s of SIGTERM");
            String shown = Files.readString(dir.resolve("demo.log"));
            assertTrue(shown.indexOf('\r') < 0, "written to a file, its progress lines are lines, not one line of carriage returns: " + shown);
            for (String name : List.of("control-plane", "agent-node-h100", "agent-node-a100")) {
                Path log = kept.resolve(name + ".log");
                assertEquals(List.of(), Horizon.faults(Files.readString(log)), "no error or warning from start to stop in " + log);
            }
        } finally {
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }
}
