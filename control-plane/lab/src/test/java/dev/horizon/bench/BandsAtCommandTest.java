package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

class BandsAtCommandTest {
    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code = HorizonCli.run(args, new PrintStream(out), new PrintStream(err));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void badMomentsAndOptionsAreOneClearLine() {
        for (String[] args : new String[][] {
                {"bands-at", "--scenario", "mixed"},
                {"bands-at", "--scenario", "mixed", "--at", "25:00"},
                {"bands-at", "--scenario", "mixed", "--at", "18:30", "--beyond-hours", "48,x"},
                {"bands-at", "--scenario", "mixed", "--at", "18:30", "--draws", "0"},
                {"bands-at", "--scenario", "mixed", "--at", "18:30", "--samples", "2"}}) {
            Run r = run(args);
            assertTrue(r.code() != 0, String.join(" ", args));
            assertEquals(1, r.err().strip().lines().count(), r.err());
        }
        assertTrue(run("bands-at", "--scenario", "mixed", "--at", "25:00").err().contains("'25:00' is not a time HH:MM into the window's first day"));
    }

    /** Each moment asked is looked at once, with a computation per draw and per distance played on, each counted consistently. */
    @Test
    void everyMomentIsComputedPerDrawAndDistanceAsTheServiceComputesBands() throws Exception {
        Run r = run("bands-at", "--scenario", "mixed", "--gpus", "16", "--days", "1", "--at", "12:00", "--draws", "2", "--samples", "4",
                "--beyond-hours", "0,24");
        assertEquals(0, r.code(), r.err());
        JsonNode report = JobJson.mapper().readTree(r.out());
        assertEquals(1, report.path("moments").size(), r.out());
        JsonNode look = report.path("moments").get(0);
        assertTrue(look.path("now").asLong() >= 12 * 3600 && look.path("at").asText().startsWith("12:"), look.toString());
        assertTrue(look.path("waiting").asInt() > 0, "a day at load 1.5 on 16 GPUs has a queue at noon: " + look);
        JsonNode computations = look.path("computations");
        assertEquals(4, computations.size(), look.toString());
        for (int i = 0; i < 4; i++) {
            JsonNode c = computations.get(i);
            assertEquals(i < 2 ? 0 : 24, c.path("beyondHours").asInt());
            assertEquals(i % 2, c.path("draw").asInt());
            assertTrue(c.path("withP90").asInt() <= c.path("withP50").asInt() && c.path("withP50").asInt() <= look.path("waiting").asInt(), c.toString());
            // a job with a planned start or both ends of a band: at least those with a P90 and those planned, at most all
            int answered = c.path("plannedOrFullBand").asInt();
            assertTrue(answered >= c.path("withP90").asInt() && answered >= look.path("planned").asInt() && answered <= look.path("waiting").asInt(),
                    c.toString());
        }
        assertTrue(r.err().contains("bands-at: "), r.err());
    }
}
