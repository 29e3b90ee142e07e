package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `./horizon eta-cost --coverage`: the bands' cost and how well bands of as many futures come true on the bench's Philly
 * windows, in one run; the coverage is the bench's own for that window. Needs ../shared/traces; skipped without it.
 */
class BandCoverageTest {
    @TempDir
    Path out;

    private static String run(ByteArrayOutputStream err, String... args) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        assertEquals(0, HorizonCli.run(args, new PrintStream(stdout), new PrintStream(err)), err.toString());
        return stdout.toString();
    }

    @Test
    void thePoolWeighsEachWindowByItsBandedJobsAndAWindowWithoutBandsCountsForNothing() {
        JsonNode n = BandCoverage.json(List.of(new BandCoverage.Covered(new BandCoverage.Window(70, 17), 300, 0.5, 0.9, 100),
                new BandCoverage.Covered(new BandCoverage.Window(71, 45), 100, 0.3, 0.7, 200),
                new BandCoverage.Covered(new BandCoverage.Window(72, 57), 0, Double.NaN, Double.NaN, Double.NaN)));
        assertEquals(400, n.path("jobs").asInt());
        assertEquals(0.45, n.path("coverageP50").asDouble(), 1e-12);
        assertEquals(0.85, n.path("coverageP90").asDouble(), 1e-12);
        assertTrue(n.path("windows").get(2).path("coverageP90").isNull(), n.toString());
        assertTrue(BandCoverage.json(List.of()).path("coverageP50").isNull(), "no windows, no pool");
    }

    @Test
    void etaCostReportsTheCoverageTheBenchMeasuresForBandsOfAsManyFutures() throws Exception {
        Path traces = PhillyBenchTest.traces();
        assumeTrue(Files.isRegularFile(traces.resolve("philly-via-pollux/philly.csv")), "needs ../shared/traces");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        JsonNode cost = JobJson.mapper().readTree(run(err, "eta-cost", "--gpus", "16", "--jobs", "20", "--samples", "4", "--coverage", "76/5",
                "--trace-dir", traces.toString()));
        assertTrue(err.toString().contains("coverage on Philly window 1 of 1 (seed 76, day 5)"), "it says which window it plays: " + err);
        run(new ByteArrayOutputStream(), "bench", "--scenario", "philly", "--seed", "76", "--trace-start-day", "5", "--load", "1.5", "--policies", "horizon",
                "--eta", "on", "--eta-samples", "4", "--trace-dir", traces.toString(), "--out", out.toString());
        JsonNode bench = JobJson.mapper().readTree(out.resolve("results.json").toFile()).path("policies").path("horizon").path("eta");
        JsonNode window = cost.path("coverage").path("windows").get(0);
        assertEquals(4, cost.path("samples").asInt());
        assertTrue(bench.path("jobs").asInt() > 0, bench.toString());
        assertEquals(bench.path("jobs").asInt(), window.path("jobs").asInt(), cost + " against " + bench);
        assertEquals(bench.path("coverageP50").asDouble(), window.path("coverageP50").asDouble(), 1e-12);
        assertEquals(bench.path("coverageP90").asDouble(), window.path("coverageP90").asDouble(), 1e-12);
        assertEquals(bench.path("jobs").asInt(), cost.path("coverage").path("jobs").asInt(), "one window: the pool is the window");
        assertEquals(bench.path("coverageP90").asDouble(), cost.path("coverage").path("coverageP90").asDouble(), 1e-12);
    }
}
