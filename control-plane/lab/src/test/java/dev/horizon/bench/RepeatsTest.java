package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.SimJob;
import dev.horizon.trace.ScenarioFile;
import dev.horizon.trace.ScenarioOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `--seeds A..B`: the window repeated with jittered arrivals, every ratio's mean and 95% interval. */
class RepeatsTest {
    @TempDir
    Path dir;

    private Path scenarioFile() throws Exception {
        StringBuilder jobs = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            if (i > 0) jobs.append(',');
            jobs.append("{\"name\":\"j").append(i).append("\",\"team\":\"t").append(i % 3).append("\",\"class\":\"TRAINING\",\"priority\":").append(1 + i % 4)
                    .append(",\"perReplica\":{\"gpus\":").append(1 << (i % 4)).append("},\"arrivalSeconds\":").append(1800 * i)
                    .append(",\"durationSeconds\":").append(3600 + 900 * (i % 5)).append('}');
        }
        Path file = dir.resolve("small.json");
        Files.writeString(file, "{\"name\":\"small\",\"gpus\":8,\"days\":1,\"jobs\":[" + jobs + "]}");
        return file;
    }

    @Test
    void jitterMovesArrivalsALittleInsideTheWindowAndSeedZeroNot() throws Exception {
        Scenario s = ScenarioFile.read(scenarioFile(), new ScenarioOptions(1, null, null, 1.0, 0.3, 0, null, null, null, null));
        assertEquals(s, s.withArrivalJitter(0, Repeats.ARRIVAL_JITTER_SECONDS));
        Scenario moved = s.withArrivalJitter(3, Repeats.ARRIVAL_JITTER_SECONDS);
        assertEquals(moved.jobs(), s.withArrivalJitter(3, Repeats.ARRIVAL_JITTER_SECONDS).jobs(), "the same seed moves them the same way");
        assertNotEquals(s.jobs(), moved.jobs());
        for (int i = 0; i < s.jobs().size(); i++) {
            SimJob a = s.jobs().get(i), b = moved.jobs().get(i);
            assertTrue(Math.abs(a.arrivalSeconds() - b.arrivalSeconds()) <= Repeats.ARRIVAL_JITTER_SECONDS && b.arrivalSeconds() >= 0, a + " -> " + b);
            assertEquals(a.arrivingAt(b.arrivalSeconds()), b, "only the arrival moves");
        }
    }

    @Test
    void theIntervalIsTheMeanPlusOrMinusStudentsT() {
        Interval i = Interval.of(List.of(1.0, 1.1, 1.2));
        assertEquals(1.1, i.mean(), 1e-12);
        assertEquals(4.303 * 0.1 / Math.sqrt(3), i.high() - i.mean(), 1e-9, "t(0.975, 2) x sd / sqrt(n)");
    }

    @Test
    void aMeanOneRunCarriesShowsInTheMedianAndRange() {
        Interval i = Interval.of(List.of(1.02, 0.99, 2.47, 1.05));
        assertEquals(1.3825, i.mean(), 1e-12);
        assertEquals(1.035, i.median(), 1e-12, "the mean of the middle two");
        assertEquals(0.99, i.lowest(), 1e-12);
        assertEquals(2.47, i.highest(), 1e-12);
        assertEquals(1.05, Interval.of(List.of(1.05, 0.9, 1.2)).median(), 1e-12);
    }

    @Test
    void everyRatioGetsAnIntervalInResultsJson() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int rc = HorizonCli.run(new String[] {"bench", "--scenario", scenarioFile().toString(), "--policies", "slurm,horizon", "--seeds", "1..3",
                "--out", dir.resolve("out").toString()}, new PrintStream(out), new PrintStream(err));
        assertEquals(0, rc, err.toString());
        JsonNode ratio = JobJson.mapper().readTree(dir.resolve("out/results.json").toFile()).path("ratios").path("interval95").path("untuned")
                .path("horizonOverBestPeer");
        assertEquals(3, ratio.path("n").asInt(), ratio.toString());
        assertTrue(ratio.path("low").asDouble() <= ratio.path("mean").asDouble() && ratio.path("mean").asDouble() <= ratio.path("high").asDouble(), ratio.toString());
        assertTrue(out.toString().contains("untuned horizonOverBestPeer over 3 runs: mean"), out.toString());
        assertTrue(ratio.path("lowest").asDouble() <= ratio.path("median").asDouble() && ratio.path("median").asDouble() <= ratio.path("highest").asDouble(),
                ratio.toString());
        assertTrue(out.toString().matches("(?s).*untuned horizonOverBestPeer over 3 runs: mean [0-9.]+, 95% interval \\[[0-9.]+, [0-9.]+\\]; median [0-9.]+, runs [0-9.]+ to [0-9.]+\n.*"),
                out.toString());
        JsonNode untuned = JobJson.mapper().readTree(dir.resolve("out/results.json").toFile()).path("ratios").path("untuned");
        double ceiling = untuned.path("boundOverBestPeer").asDouble();
        assertEquals(untuned.path("horizonOverBestPeer").asDouble() / untuned.path("horizonOverBound").asDouble(), ceiling, 1e-9,
                "the bound over the best peer: the most any policy could reach against it " + untuned);
        assertTrue(ceiling >= untuned.path("horizonOverBestPeer").asDouble(), "no policy passes the bound " + untuned);
        assertTrue(out.toString().contains("untuned boundOverBestPeer over 3 runs: mean"), out.toString());
        assertEquals(2, HorizonCli.run(new String[] {"bench", "--scenario", "mixed", "--seeds", "5..2", "--out", dir.toString()},
                new PrintStream(out), new PrintStream(err)), "B below A is a usage error");
        assertTrue(err.toString().contains("--seeds must be A..B"), err.toString());
    }
}
