package dev.horizon.service.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.service.SoakProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A small soak through the real command: both stores timed, history written and held to the retention window. */
@QuarkusTest
@TestProfile(SoakProfile.class)
class SoakCommandTest {
    @Inject
    SoakCommand soak;

    private record Run(int rc, String out, String err) {
    }

    private Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int rc = soak.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aSoakTimesBothStoresAndRetentionKeepsTheHistoryToItsWindow() throws Exception {
        Run r = run("--days", "5", "--nodes", "2", "--jobs-per-day", "200", "--plans", "5", "--warmup", "3");
        assertEquals(0, r.rc(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals(5, json.path("days").asInt());
        long finished = json.path("finishedJobs").asLong();
        assertTrue(finished > 900 && finished <= 1000, "about five days of 200 jobs finished in the history: " + finished);
        for (String store : List.of("empty", "full")) {
            JsonNode p = json.path("planLoopMs").path(store);
            assertTrue(p.path("p50").asDouble() > 0 && p.path("p99").asDouble() >= p.path("p50").asDouble(), store + ": " + p);
        }
        assertTrue(json.path("storeBytes").asLong() > 0, r.out());
        assertTrue(json.path("phaseMeanMs").path("full").path("load").asDouble() > 0, "the loop's phases: " + json.path("phaseMeanMs"));
        JsonNode rows = json.path("rows");
        assertTrue(json.path("jobsDeletedByRetention").asLong() > 300, "jobs older than the two days of retention went: " + r.out());
        assertTrue(rows.path("jobs").asLong() < finished, "the store holds less than the history: " + rows);
        assertTrue(rows.path("job_history_hourly").asLong() > 0 && rows.path("duration_stats").asLong() > 0
                && rows.path("team_usage_hourly").asLong() > 0, "what went is in the hourly aggregates: " + rows);
        assertTrue(r.err().contains("history") && r.err().contains("100%"), "a progress bar while it fills: " + r.err());

        Run again = run("--days", "1", "--nodes", "2");
        assertEquals(2, again.rc());
        assertTrue(again.err().contains("needs a fresh store"), again.err());
    }

    @Test
    void badOptionsAreOneLineNamingTheOption() {
        Run word = run("--days", "ninety");
        assertEquals(2, word.rc());
        assertEquals("horizon soak: --days must be a whole number (got 'ninety')", word.err().strip());
        assertTrue(run("--jobs-per-day", "0").err().contains("--jobs-per-day must be at least 1 (got 0)"));
        assertTrue(run("--hours", "3").err().contains("unknown option '--hours'"));
        assertTrue(run("--plans").err().contains("--plans needs a value"));
        assertEquals(0, run("--help").rc());
    }
}
