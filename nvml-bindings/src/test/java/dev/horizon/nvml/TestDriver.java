package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Native;
import dev.horizon.nvml.sim.SimulatedDriver;
import dev.horizon.nvml.smi.SmiCommand;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Which driver the suite runs against: the simulated one (default, what surefire configures) or,
 * with HORIZON_NVML_REAL=1, the machine's NVIDIA driver, where only read-only tests run unless
 * HORIZON_NVML_ALLOW_MIG_CHANGES=1.
 */
final class TestDriver {
    /** What the pom gives the simulated driver: HORIZON_SIM_GPUS. */
    static final String SIM_GPUS = "2xH100-80GB,1xA100-40GB,1xH200-141GB,1xA100-80GB";
    static final int H100 = 0;
    static final int H100_SECOND = 1;
    static final int A100_40GB = 2;
    static final int H200 = 3;
    static final int A100_80GB = 4;

    private TestDriver() {}

    static boolean real() {
        return "1".equals(System.getenv("HORIZON_NVML_REAL"));
    }

    static boolean migChangesAllowed() {
        return !real() || "1".equals(System.getenv("HORIZON_NVML_ALLOW_MIG_CHANGES"));
    }

    static void assumeSimulated() {
        assumeFalse(real(), "needs the simulated driver (HORIZON_NVML_REAL=1 is set)");
    }

    static void assumeMigChangesAllowed() {
        assumeTrue(migChangesAllowed(), "changes MIG: set HORIZON_NVML_ALLOW_MIG_CHANGES=1 to run it on a real GPU");
    }

    /** The simulated driver, back in its initial state (no MIG, processes or faults). */
    static SimulatedDriver freshSim() {
        assumeSimulated();
        SimulatedDriver sim = SimulatedDriver.require();
        sim.command("reset");
        return sim;
    }

    /** Resets the simulated driver; does nothing against a real one. */
    static void resetIfSimulated() {
        if (!real()) SimulatedDriver.require().command("reset");
    }

    record Run(int status, String out, String err) {
        List<String> errLines() {
            return err.isEmpty() ? List.of() : List.of(err.split("\n"));
        }
    }

    /** Runs SmiCommand in this JVM. */
    static Run smi(String... args) {
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        int status = SmiCommand.run(args, new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Runs SmiCommand in a new JVM, as horizon-smi.sh does, with the simulated driver on
     * jna.library.path and {@code env} added to (or, with a null value, removed from) the environment.
     */
    static Run smiProcess(Map<String, String> env, List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Djna.library.path=" + System.getProperty("horizon.nvml.sim.dir"));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(codeSource(SmiCommand.class) + File.pathSeparator + codeSource(Native.class));
        command.add(SmiCommand.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        env.forEach((key, value) -> {
            if (value == null) builder.environment().remove(key);
            else builder.environment().put(key, value);
        });
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            byte[] err = process.getErrorStream().readAllBytes();
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "smi did not finish");
            return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String codeSource(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
