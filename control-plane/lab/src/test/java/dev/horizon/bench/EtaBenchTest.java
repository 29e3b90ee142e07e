package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.api.JobJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `./horizon bench --eta on`: start-time bands per policy that plans ahead, held against when each job started. */
class EtaBenchTest {
    @TempDir
    Path out;

    private static int bench(Path out, String eta, ByteArrayOutputStream err, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("bench", "--scenario", "training-heavy", "--gpus", "16", "--days", "1", "--policies", "fifo,horizon",
                "--eta", eta, "--out", out.toString()));
        args.addAll(List.of(more));
        return HorizonCli.run(args.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
    }

    @Test
    void horizonsBandsAreReportedPerLevelAndFifoHasNone() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, bench(out, "on", err), err.toString());
        JsonNode p = JobJson.mapper().readTree(out.resolve("results.json").toFile()).path("policies");
        assertTrue(p.path("fifo").path("eta").isMissingNode(), "FIFO plans no start beyond now, so it has no bands");
        JsonNode eta = p.path("horizon").path("eta");
        int jobs = eta.path("jobs").asInt();
        assertTrue(jobs > 0, "horizon: " + eta);
        for (String f : new String[] {"coverageP50", "coverageP90"}) {
            double c = eta.path(f).asDouble(-1);
            assertTrue(c >= 0 && c <= 1, f + " " + eta);
        }
        assertTrue(eta.path("medianAbsErrorSeconds").asDouble(-1) >= 0 && eta.path("medianWaitSeconds").asDouble(-1) >= 0, eta.toString());
        JsonNode like = eta.path("likeArrivals");
        int liked = like.path("jobs").asInt(-1);
        // none on this small day; the Philly windows have dozens to hundreds each (docs/control-plane.md)
        assertTrue(liked >= 0 && liked <= jobs, "jobs shown a band off the work like them before their own: " + like);
        for (String f : List.of("coverageP50", "coverageP90")) {
            double c = like.path(f).asDouble(-1);
            assertTrue(liked == 0 ? Double.isNaN(c) : c >= 0 && c <= 1, f + " " + like);
        }
        int bursts = eta.path("bursts").asInt();
        assertTrue(bursts >= 1 && bursts <= jobs, "the banded jobs came in at least one burst, at most one each: " + eta);
        for (String level : new String[] {"p50", "p90"}) {
            JsonNode odds = eta.path("calibratedOdds").path(level);
            double early = odds.path("tooEarly").asDouble(-1), within = odds.path("within").asDouble(-1), late = odds.path("tooLate").asDouble(-1);
            assertTrue(early >= 0 && within >= 0 && late >= 0, level + " " + eta);
            assertEquals(1, early + within + late, 1e-9, "every trial lands below, within or above the target: " + odds);
        }
        JsonNode levels = eta.path("byLevel");
        assertEquals(9, levels.size());
        assertEquals(eta.path("coverageP90").asDouble(), levels.get(8).path("coverage").asDouble(), 1e-12);
        for (int i = 1; i < levels.size(); i++) {
            assertTrue(levels.get(i).path("coverage").asDouble() >= levels.get(i - 1).path("coverage").asDouble(), "coverage rises with the level: " + levels);
        }
        assertEquals(jobs + 1, Files.readAllLines(out.resolve("eta.csv")).size(), "one eta.csv row per banded job");
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("Start-time bands: calibration"));
        assertTrue(html.contains("nominal level") && html.contains("horizon calibrated") && html.contains("horizon raw"), "the calibration chart");
        assertTrue(html.contains("banded jobs came in " + bursts + " bursts"), "the odds under the chart");
        List<String> rows = Files.readAllLines(out.resolve("eta.csv"));
        assertTrue(rows.get(0).endsWith(",raw_starts_s"), rows.get(0));
        for (String row : rows.subList(1, rows.size())) {
            assertEquals(StartBands.SAMPLES, row.substring(row.lastIndexOf(',') + 1).split(" ").length, "every sampled start of the raw band: " + row);
        }
    }

    @Test
    void eachBandIsReadFromAsManyFuturesAsAsked() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, bench(out, "on", err, "--eta-samples", "5"), err.toString());
        List<String> rows = Files.readAllLines(out.resolve("eta.csv"));
        assertTrue(rows.size() > 1, "some jobs were banded");
        for (String row : rows.subList(1, rows.size())) assertEquals(5, row.substring(row.lastIndexOf(',') + 1).split(" ").length, row);
    }

    @Test
    void withoutEtaThereAreNoBandsAndABadValueSaysSoInOneLine() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, bench(out, "off", err), err.toString());
        assertTrue(JobJson.mapper().readTree(out.resolve("results.json").toFile()).path("policies").path("horizon").path("eta").isMissingNode());
        assertFalse(Files.exists(out.resolve("eta.csv")));
        ByteArrayOutputStream bad = new ByteArrayOutputStream();
        assertTrue(bench(out, "maybe", bad) != 0);
        assertEquals(1, bad.toString().strip().lines().count(), bad.toString());
        assertTrue(bad.toString().contains("--eta must be on or off (got 'maybe')"), bad.toString());
    }
}
