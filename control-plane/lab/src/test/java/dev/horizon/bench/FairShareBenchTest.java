package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fairshare scenario through the CLI: the contract's fields, and what Horizon holds beside Ai2's old system and static quotas. */
class FairShareBenchTest {
    @TempDir
    Path out;

    @Test
    void horizonDeliversEveryTeam95PercentOfItsOwedHoursWithDebugWaitsUnderAMinute() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = HorizonCli.run(new String[] {"bench", "--scenario", "fairshare", "--gpus", "128", "--days", "2", "--teams", "15",
                "--seed", "3", "--policies", "legacy,quota,horizon", "--out", out.toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(0, code, err.toString());
        JsonNode r = ScheduleAudit.check(out, 8, 4);
        JsonNode p = r.path("policies");
        for (String name : new String[] {"legacy", "quota", "horizon"}) {
            JsonNode m = p.path(name);
            assertEquals(15, m.path("owedGpuHoursDelivered").path("perTeam").size(), name);
            for (String field : new String[] {"unallocatedShare", "preemptions", "lostGpuHours", "occupancy"}) {
                assertTrue(m.has(field), name + " lacks " + field);
            }
        }
        JsonNode horizon = p.path("horizon");
        double worst = horizon.path("owedGpuHoursDelivered").path("min").asDouble();
        assertTrue(worst >= 0.95, "every team gets at least 95% of the GPU-hours it is owed; the worst got " + worst);
        assertTrue(worst > p.path("legacy").path("owedGpuHoursDelivered").path("min").asDouble(), "worst team vs Ai2's old system");
        assertTrue(worst > p.path("quota").path("owedGpuHoursDelivered").path("min").asDouble(), "worst team vs static quotas");
        assertTrue(horizon.path("waitSeconds").path("byClass").path("DEBUG").path("p90").asDouble() <= 60, horizon.path("waitSeconds").toString());
        assertTrue(horizon.path("occupancy").asDouble() >= 0.95, "occupancy " + horizon.path("occupancy"));
        assertTrue(Files.size(out.resolve("report.html")) > 0);
    }

    @Test
    void aMalformedBudgetFileIsRejectedNamingItsLine() throws Exception {
        Path budgets = out.resolve("budgets.yaml");
        Files.writeString(budgets, "teams:\n  - {name: a, share: 0.5}\n  - {name: b, parent: ghost, share: 0.5}\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = HorizonCli.run(new String[] {"bench", "--scenario", "fairshare", "--budgets", budgets.toString(), "--out", out.toString()},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(2, code);
        assertTrue(err.toString().contains("budgets.yaml line 3: budget 'b': parent 'ghost' is not defined above it"), err.toString());
    }

    @Test
    void ageingWaitingWorkBoundsTheLongestWaitsAndNeedsBudgets() throws Exception {
        JsonNode plain = fairShareRun("plain");
        JsonNode aged = fairShareRun("aged", "--age-doubling-hours", "12");
        assertEquals(12, aged.path("scenario").path("ageDoublingHours").asInt());
        assertTrue(plain.path("scenario").path("ageDoublingHours").isMissingNode());
        double plainWait = plain.path("policies").path("horizon").path("waitSeconds").path("p95").asDouble();
        double agedWait = aged.path("policies").path("horizon").path("waitSeconds").path("p95").asDouble();
        assertTrue(agedWait < plainWait, "work that waited 12 h ranks higher in its team's budget, so the longest waits shrink: "
                + agedWait + " s against " + plainWait + " s");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = HorizonCli.run(new String[] {"bench", "--scenario", "mixed", "--gpus", "8", "--days", "1", "--age-doubling-hours", "12",
                "--out", out.resolve("mixed").toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(2, code);
        assertTrue(err.toString().contains("--age-doubling-hours ages work inside team budgets, and scenario 'mixed' has none"), err.toString());
    }

    private JsonNode fairShareRun(String name, String... extra) throws Exception {
        Path dir = out.resolve(name);
        List<String> args = new ArrayList<>(List.of("bench", "--scenario", "fairshare", "--gpus", "32", "--days", "2",
                "--teams", "4", "--seed", "3", "--policies", "horizon", "--slo-target", "off", "--out", dir.toString()));
        args.addAll(List.of(extra));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, HorizonCli.run(args.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream()), new PrintStream(err)), err.toString());
        return new ObjectMapper().readTree(dir.resolve("results.json").toFile());
    }
}
