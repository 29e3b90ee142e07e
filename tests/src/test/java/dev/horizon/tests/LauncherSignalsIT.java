package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Ctrl-C on a launcher whose output is piped ({@code ./horizon load | tee x}, the way {@code ./horizon demo | tee x}
 * runs: both start their processes and temp dir the same way): the terminal's SIGINT reaches the whole foreground
 * group, tee dies first, and the launcher still stops every process it started and removes its temp dir.
 */
class LauncherSignalsIT {
    /** Runs its arguments with SIGINT at its default disposition. */
    private static final String RESET_SIGINT = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])";

    @Test
    void ctrlCWithThePipesReaderGoneLeavesNoProcessAndNoTempDir() throws Exception {
        Path dir = Files.createTempDirectory("horizon-signals");
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path out = dir.resolve("out.log");
        // setsid: the launcher and tee in a process group of their own, as a terminal's foreground job is; SIGINT back at
        // its default first, as in a terminal: a build started in the background of a script (nohup mvn ... &) ignores
        // it, every process it starts inherits that, and a shell cannot trap a signal ignored when it started
        ProcessBuilder pb = new ProcessBuilder("setsid", "python3", "-c", RESET_SIGINT, "bash", "-c",
                "./horizon load --nodes 1 --jobs 1000000 --clients 1 | tee '" + out + "' >/dev/null")
                .directory(Horizon.ROOT.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("stderr.log").toFile());
        pb.environment().put("TMPDIR", tmp.toString());
        Process group = pb.start();
        try {
            Horizon.await("the launcher's control plane starting", 180, dir, () -> Files.exists(out) ? Files.readString(out) : "",
                    text -> text.contains("ready after"));
            List<ProcessHandle> started = startedIn(tmp);
            assertTrue(!started.isEmpty(), "the control plane runs with its data in the launcher's temp dir");
            assertEquals(0, new ProcessBuilder("kill", "-INT", "--", "-" + group.pid()).start().waitFor(), "Ctrl-C to the group");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
            while (System.nanoTime() < deadline && (!startedIn(tmp).isEmpty() || !empty(tmp))) Thread.sleep(250);
            assertEquals(List.of(), startedIn(tmp).stream().map(p -> p.info().commandLine().orElse("?")).toList(),
                    "no process the launcher started is left; see " + dir.resolve("stderr.log"));
            assertTrue(empty(tmp), "the launcher's temp dir is gone: " + list(tmp));
        } finally {
            startedIn(tmp).forEach(ProcessHandle::destroyForcibly);
            group.descendants().forEach(ProcessHandle::destroyForcibly);
            group.destroyForcibly();
        }
    }

    /** The processes whose command line names the temp dir the launcher made under tmp (its control plane's data dir). */
    private static List<ProcessHandle> startedIn(Path tmp) {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(tmp.toString())).toList();
    }

    private static boolean empty(Path dir) throws Exception {
        return list(dir).isEmpty();
    }

    private static List<Path> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }
}
