package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The must-show on the reference-sized scenario, through the same entry point a user runs. */
class TrainingHeavyBenchTest {
    @TempDir
    Path out;

    @Test
    void horizonBeatsFifoByTheReferencesBestMargins() throws Exception {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream(), stderr = new ByteArrayOutputStream();
        int code = HorizonCli.run(new String[] {"bench", "--scenario", "training-heavy", "--out", out.toString()},
                new PrintStream(stdout), new PrintStream(stderr));
        assertEquals(0, code, stderr.toString());
        assertTrue(stderr.toString().contains("100%"), "progress is shown");
        for (String f : new String[] {"results.json", "schedule.csv", "rt.csv", "report.html"}) assertTrue(Files.size(out.resolve(f)) > 0, f);
        JsonNode r = ScheduleAudit.check(out, 8, 4);
        JsonNode fifo = r.path("policies").path("fifo"), horizon = r.path("policies").path("horizon");
        double utilGain = horizon.path("utilization").asDouble() - fifo.path("utilization").asDouble();
        double outputRatio = horizon.path("priorityWeightedOutput").asDouble() / fifo.path("priorityWeightedOutput").asDouble();
        assertTrue(utilGain >= 0.33, "utilization gain over FIFO " + utilGain);
        assertTrue(outputRatio >= 2.05, "output ratio over FIFO " + outputRatio);
        for (String p : new String[] {"fifo", "backfill", "priority", "horizon"}) {
            JsonNode m = r.path("policies").path(p);
            assertTrue(m.path("priorityWeightedOutput").asDouble() <= r.path("upperBound").path("priorityWeightedOutput").asDouble() * 1.0001, p + " above the bound");
            assertTrue(m.path("utilization").asDouble() <= r.path("upperBound").path("utilization").asDouble() + 1e-6, p + " above the bound");
        }
        assertTrue(horizon.path("rtSloAttainment").asDouble() >= 0.99);
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<svg") && html.contains("Utilization over time") && html.contains("Inference demand vs GPUs held"));
    }
}
