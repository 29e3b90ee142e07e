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
        assertEquals(60, r.path("scenario").path("rtSloResolutionSeconds").asInt(), "inference is scored per minute");
        java.util.List<String> fields = new java.util.ArrayList<>();
        horizon.fieldNames().forEachRemaining(fields::add);
        assertTrue(fields.contains("audit") && fields.contains("wideJobWaitSeconds"), fields.toString());
        for (String p : new String[] {"fifo", "backfill", "priority", "kai", "kueue", "slurm", "horizon"}) {
            JsonNode m = r.path("policies").path(p);
            java.util.List<String> own = new java.util.ArrayList<>();
            m.fieldNames().forEachRemaining(own::add);
            assertEquals(fields, own, p + " has the same fields as horizon");
            assertEquals(0, m.path("audit").path("violations").asInt(-1), p + " audit " + m.path("audit"));
            assertTrue(m.path("audit").path("byKind").isObject(), p);
            assertTrue(m.path("priorityWeightedOutput").asDouble() <= r.path("upperBound").path("priorityWeightedOutput").asDouble() * 1.0001, p + " above the bound");
            assertTrue(m.path("utilization").asDouble() <= r.path("upperBound").path("utilization").asDouble() + 1e-6, p + " above the bound");
        }
        assertTrue(horizon.path("rtSloAttainment").asDouble() >= 0.99);
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<svg") && html.contains("Utilization over time") && html.contains("Inference demand vs GPUs held, per minute"));
        assertTrue(html.contains("(best baseline)") && html.contains("wide wait p95 s") && html.contains("lost GPU-h"), "the report's table");
    }
}
