package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.agent.v1.SetSharing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bare-metal sharing against src/test/resources/fake-mps/nvidia-cuda-mps-control, a stand-in that behaves as the real
 * one does towards its caller and records every call (environment, arguments, stdin) in the MPS directory's calls.txt.
 */
class MpsDaemonsTest {
    private static final String GPU = "GPU-0f1e2d3c-0000-4000-8000-000000000001";
    private static final long H100_MIB = 81559;

    @TempDir
    Path dir;
    private Path record;
    private MpsDaemons mps;

    @BeforeEach
    void fakeMpsControl() {
        // from the source tree: resource copying into target/ drops the executable bit
        Path script = Path.of("src/test/resources/fake-mps/nvidia-cuda-mps-control").toAbsolutePath();
        assertTrue(Files.isExecutable(script), script + " must be executable");
        mps = new MpsDaemons(script.toString(), dir.resolve("mps"));
        record = dir.resolve("mps/calls.txt");
    }

    @Test
    void startsADaemonPerGpuWithItsPipeAndSetsTheClientLimits() throws Exception {
        mps.apply(GPU, new Sharing.Share(SetSharing.Mode.MPS, 4, 25, 16000, H100_MIB));
        Path pipe = dir.resolve("mps").resolve(GPU).resolve("pipe");
        assertEquals(pipe, mps.pipeDirectory(GPU));
        List<String> calls = Files.readAllLines(record);
        assertTrue(calls.contains("CALL visible=" + GPU + " pipe=" + pipe + " log=" + dir.resolve("mps").resolve(GPU).resolve("log") + " args=-d"),
                String.join("\n", calls));
        assertTrue(calls.contains("STDIN set_default_active_thread_percentage 25"), String.join("\n", calls));
        assertTrue(calls.contains("STDIN set_default_device_pinned_mem_limit 0 16000M"), String.join("\n", calls));
    }

    @Test
    void timeSlicingGetsAnEqualShareOfSmsAndMemoryAndARunningDaemonIsReusedAndStopped() throws Exception {
        Sharing.Share fourWays = new Sharing.Share(SetSharing.Mode.TIME_SLICING, 4, 0, 0, H100_MIB);
        mps.apply(GPU, fourWays);
        mps.apply(GPU, fourWays);
        List<String> calls = Files.readAllLines(record);
        assertEquals(1, calls.stream().filter(c -> c.endsWith("args=-d")).count(), "one daemon, found running the second time: " + calls);
        assertTrue(calls.contains("STDIN set_default_active_thread_percentage 25"), String.join("\n", calls));
        assertTrue(calls.contains("STDIN set_default_device_pinned_mem_limit 0 " + H100_MIB / 4 + "M"), String.join("\n", calls));

        mps.stop(GPU);
        assertTrue(Files.readAllLines(record).contains("STDIN quit"));
        assertTrue(Files.notExists(mps.pipeDirectory(GPU).resolve("control")), "the daemon is gone");
    }

    @Test
    void aMissingCommandFailsWithWhatToInstall() {
        MpsDaemons missing = new MpsDaemons(dir.resolve("no-such-mps-control").toString(), dir.resolve("mps"));
        CommandFailure e = assertThrows(CommandFailure.class, () -> missing.apply(GPU, new Sharing.Share(SetSharing.Mode.MPS, 2, 50, 0, H100_MIB)));
        assertTrue(e.getMessage().contains("horizon.agent.mps-control"), e.getMessage());
    }

    @Test
    void kubernetesIsDetectedByItsServiceHostUnlessConfigured() {
        assertEquals(Sharing.Backend.DEVICE_PLUGIN, Sharing.detect(Sharing.Backend.AUTO, Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1")));
        assertEquals(Sharing.Backend.MPS, Sharing.detect(Sharing.Backend.AUTO, Map.of("KUBERNETES_SERVICE_HOST", " ")));
        assertEquals(Sharing.Backend.MPS, Sharing.detect(Sharing.Backend.AUTO, Map.of()));
        assertEquals(Sharing.Backend.DEVICE_PLUGIN, Sharing.detect(Sharing.Backend.DEVICE_PLUGIN, Map.of()));
        assertEquals(Sharing.Backend.MPS, Sharing.detect(Sharing.Backend.MPS, Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1")));
    }
}
