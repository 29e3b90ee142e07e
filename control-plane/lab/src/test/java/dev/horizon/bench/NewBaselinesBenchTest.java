package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kai, kueue and slurm run through the CLI on small scenarios, with every placement rule in play, and pass their audit. */
class NewBaselinesBenchTest {
    @TempDir
    Path out;

    private JsonNode bench(String... args) throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--out";
        all[args.length + 1] = out.toString();
        int code = HorizonCli.run(all, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(0, code, err.toString());
        return com.fasterxml.jackson.databind.json.JsonMapper.builder().build().readTree(out.resolve("results.json").toFile());
    }

    @Test
    void onWideGangsEveryRuleHoldsForTheBaselines() throws Exception {
        JsonNode r = bench("bench", "--scenario", "wide-gangs", "--days", "1", "--policies", "kai,kueue,slurm");
        for (String p : new String[] {"kai", "kueue", "slurm"}) {
            JsonNode m = r.path("policies").path(p);
            assertEquals(0, m.path("audit").path("violations").asInt(-1), p + " " + m.path("audit"));
            assertTrue(m.path("jobsStarted").asInt() > 0 && m.path("wideJobWaitSeconds").path("jobs").asInt() > 0, p);
            assertTrue(m.path("priorityWeightedOutput").asDouble() <= r.path("upperBound").path("priorityWeightedOutput").asDouble(), p);
        }
    }

    @Test
    void onMixedTheAutoscaledServiceMeetsMostMinutes() throws Exception {
        JsonNode r = bench("bench", "--scenario", "mixed", "--gpus", "16", "--days", "1", "--policies", "kai,kueue,slurm");
        for (String p : new String[] {"kai", "kueue", "slurm"}) {
            JsonNode m = r.path("policies").path(p);
            assertEquals(0, m.path("audit").path("violations").asInt(-1), p + " " + m.path("audit"));
            assertTrue(m.path("rtSloAttainment").asDouble() >= 0.9, p + " " + m.path("rtSloAttainment"));
        }
    }
}
