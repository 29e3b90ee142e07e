package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `./horizon bench --scenario demo-day`: the demo's day on the demo's cluster, its static MIG layouts seen by a baseline. */
class DemoDayBenchTest {
    @TempDir
    Path out;

    @Test
    void slurmRunsTheDemosDayOnItsClusterAndUsesTheStaticMigSlices() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // no traces in the temp dir: the built-in generator's day, the same everywhere
        int rc = HorizonCli.run(new String[] {"bench", "--scenario", "demo-day", "--seed", "1", "--policies", "slurm", "--trace-dir", out.toString(),
                "--out", out.toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(0, rc, err.toString());
        JsonNode scenario = JobJson.mapper().readTree(out.resolve("results.json").toFile()).path("scenario");
        assertEquals("demo-day", scenario.path("name").asText(), scenario.toString());
        String schedule = Files.readString(out.resolve("schedule.csv"));
        assertTrue(schedule.contains("node-h100[") && schedule.contains("node-a100["), "the demo's two hosts");
        assertTrue(schedule.contains("node-a100[7-7:1g.10gb@"), "a debug slice lands on GPU 7's 1g.10gb instances, which Slurm cannot re-partition");
    }
}
