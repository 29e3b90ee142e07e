package dev.horizon.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device-check folder that pre-integration-test made, copied elsewhere and run as a bare GPU host would run it
 * (PATH emptied), here against the simulated driver: it stays under 60 MiB, reports every call, and with injected
 * faults reports each failing call by its NVML name and goes on.
 */
class DeviceCheckBundleIT {
    private static final double LIMIT_MIB = 60;

    @TempDir
    Path dir;
    private Path check;

    @BeforeEach
    void copyTheFolder() throws Exception {
        Path built = BundleProcess.built("horizon.device-check.dir");
        double size = BundleProcess.mebibytes(built);
        System.out.printf("device check: the folder is %.1f MiB%n", size);
        assertTrue(size < LIMIT_MIB, "the folder is " + size + " MiB");
        check = dir.resolve("horizon-device-check");
        assertEquals(0, new ProcessBuilder("cp", "-a", built.toString(), check.toString()).inheritIO().start().waitFor());
    }

    private record Run(int status, String report) {}

    private Run runSh(Map<String, String> extra) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("HORIZON_NVML_LIBRARY_PATH", System.getProperty("horizon.nvml.sim.dir"),
                "HORIZON_SIM_GPUS", "2xH100-80GB"));
        env.putAll(extra);
        Process p = BundleProcess.start(dir.resolve("empty-path"), dir.resolve("run.log"), env, List.of(check.resolve("run.sh").toString()));
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "run.sh did not finish");
        return new Run(p.exitValue(), BundleProcess.read(check.resolve("report.json")));
    }

    @Test
    void runShChecksTheSimulatedDriverAndWritesTheReport() throws Exception {
        Run run = runSh(Map.of());
        assertEquals(0, run.status(), run.report());
        assertTrue(run.report().contains("\"driverVersion\": \"550.90.07\"") && run.report().contains("\"cudaDriverVersion\": \"12.4\""),
                run.report());
        assertTrue(run.report().contains("\"function\": \"nvmlDeviceGetGpuInstancePossiblePlacements_v2\""), "each call by its NVML name");
        assertTrue(Pattern.compile("\"summary\": \\{\\s*\"ok\": true").matcher(run.report()).find(), run.report());
    }

    @Test
    void withFaultsItReportsEachFailingCallByNameAndGoesOn() throws Exception {
        Run run = runSh(Map.of("HORIZON_SIM_FAULTS", "fault gpu=1 fail=nvmlDeviceGetPowerUsage:UNKNOWN;fault fail=nvmlEventSetCreate:NO_PERMISSION"));
        assertEquals(3, run.status(), "some steps failed");
        assertTrue(run.report().contains("\"gpu 1: power: nvmlDeviceGetPowerUsage: NVML_ERROR_UNKNOWN"), run.report());
        assertTrue(run.report().contains("nvmlEventSetCreate: NVML_ERROR_NO_PERMISSION"), run.report());
        assertTrue(Pattern.compile("\"step\": \"nvmlShutdown\",\\s*\"outcome\": \"ok\"").matcher(run.report()).find(),
                "the check went on to the end: " + run.report());
    }
}
