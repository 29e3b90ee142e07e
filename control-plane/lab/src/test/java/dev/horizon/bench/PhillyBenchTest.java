package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The must-show on the public Philly log with the GenAI demand curve. Needs ../shared/traces
 * beside the checkout (the traces' licences keep them out of the project); skipped without it. Against the peak-reserving
 * baselines, with every policy as configured (--slo-target off: those baselines have no knob, Horizon its default coverage).
 */
public class PhillyBenchTest {
    @TempDir
    Path out;

    public static Path traces() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) dir = dir.getParent();
        return dir == null ? Path.of("/nonexistent") : dir.resolveSibling("shared").resolve("traces");
    }

    @ParameterizedTest(name = "seed {0}, start day {1}, load {2}")
    @CsvSource({"1, 0, 1.5", "7, 33, 1.2", "3, 70, 2.0"})
    void horizonMeetsEveryTargetOnPhilly(int seed, int day, double load) throws Exception {
        Path traces = traces();
        assumeTrue(Files.isRegularFile(traces.resolve("philly-via-pollux/philly.csv")), "needs ../shared/traces");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = HorizonCli.run(new String[] {"bench", "--scenario", "philly", "--out", out.toString(), "--seed", "" + seed,
                "--trace-start-day", "" + day, "--load", "" + load, "--trace-dir", traces.toString(), "--policies", "fifo,backfill,priority,horizon",
                "--slo-target", "off"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertTrue(code == 0, err.toString());
        JsonNode r = ScheduleAudit.check(out, 8, 4);
        JsonNode p = r.path("policies");
        double fifoU = p.path("fifo").path("utilization").asDouble(), fifoO = p.path("fifo").path("priorityWeightedOutput").asDouble();
        double u = p.path("horizon").path("utilization").asDouble(), o = p.path("horizon").path("priorityWeightedOutput").asDouble();
        double boundU = r.path("upperBound").path("utilization").asDouble(), boundO = r.path("upperBound").path("priorityWeightedOutput").asDouble();
        double bestOther = Math.max(fifoO, Math.max(p.path("backfill").path("priorityWeightedOutput").asDouble(),
                p.path("priority").path("priorityWeightedOutput").asDouble()));
        String summary = String.format("u=%.3f fifoU=%.3f boundU=%.3f o=%.1f fifoO=%.1f best=%.1f boundO=%.1f", u, fifoU, boundU, o, fifoO, bestOther, boundO);
        assertTrue(u >= 0.9 * boundU, "utilization vs bound: " + summary);
        assertTrue(u >= fifoU + 0.10, "utilization vs FIFO: " + summary);
        assertTrue(o >= 1.25 * fifoO, "output vs FIFO: " + summary);
        assertTrue(o >= 1.05 * bestOther, "output vs best baseline: " + summary);
        assertTrue(o >= 0.75 * boundO, "output vs bound: " + summary);
        assertTrue(p.path("horizon").path("rtSloAttainment").asDouble() >= 0.99, "rt SLO: " + p.path("horizon"));
    }
}
