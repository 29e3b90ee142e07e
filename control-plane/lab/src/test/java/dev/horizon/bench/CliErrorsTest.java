package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.allocator.eta.StartBands;
import dev.horizon.api.JobJson;
import dev.horizon.trace.Scenarios;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliErrorsTest {
    @TempDir
    Path traces;

    /** A traces folder with the Philly log but not the GenAI demand the philly scenario also reads. */
    private Path withPhillyLogOnly() throws Exception {
        Path log = traces.resolve(Scenarios.PHILLY_LOG);
        Files.createDirectories(log.getParent());
        if (!Files.exists(log)) Files.writeString(log, "");
        return traces;
    }
    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code = HorizonCli.run(args, new PrintStream(out), new PrintStream(err));
        return new Run(code, out.toString(), err.toString());
    }

    private static void oneClearLine(Run r, String mustContain) {
        assertTrue(r.code() != 0);
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains(mustContain), r.err());
    }

    @Test
    void unknownScenarioMissingTraceAndBadOptionsSayWhatIsWrongInOneLine() {
        oneClearLine(run("bench", "--scenario", "nope", "--out", "/tmp/x"), "unknown scenario 'nope'");
        oneClearLine(run("bench", "--scenario", "philly", "--out", "/tmp/x", "--trace-dir", "/nonexistent"), "missing trace");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--load", "abc"), "--load must be a number");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--gpus", "0"), "--gpus must be at least 1");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--policies", "fifo,lsf"), "unknown policy 'lsf'");
        oneClearLine(run("bench", "--scenario", "mixed", "--frobnicate", "1"), "unknown option '--frobnicate'");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--reclaim-seconds", "-5"), "--reclaim-seconds must be >= 0");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--slo-target", "1.5"), "--slo-target must be in (0, 1] or off");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--seeds", "3..x"), "--seeds must be A..B");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--eta-samples", "8"), "--eta-samples is for --eta on");
        oneClearLine(run("bench", "--scenario", "mixed", "--out", "/tmp/x", "--eta", "on", "--eta-samples", "0"), "--eta-samples must be between 1 and 1000 (got 0)");
        oneClearLine(run("bench", "--scenario", "wide-gangs", "--out", "/tmp/x", "--gpus", "64"), "--gpus: wide-gangs has a fixed cluster of 128 GPUs");
        oneClearLine(run("latency", "--gpus", "8"), "latency needs --gpus G and --jobs J");
        oneClearLine(run("latency", "--gpus", "8", "--jobs", "3", "--mode", "exact"), "--mode must be heuristic or cpsat");
        oneClearLine(run("latency", "--gpus", "8", "--jobs", "3", "--pools", "9"), "--pools must be from 1 to --gpus (got 9)");
        oneClearLine(run("latency", "--gpus", "8", "--jobs", "3", "--pools", "2", "--cross-pool", "1.5"), "--cross-pool must be from 0 to 1");
        oneClearLine(run("latency", "--gpus", "8", "--jobs", "3", "--pools", "2", "--threads", "0"), "--threads must be at least 1");
    }

    @Test
    void etaCostPlaysOnPastTheHorizonAsTheControlPlaneDoesUnlessToldNot() throws Exception {
        oneClearLine(run("eta-cost", "--gpus", "16", "--jobs", "10", "--beyond-hours", "-1"), "--beyond-hours must be between 0 and 720");
        oneClearLine(run("eta-cost", "--gpus", "16", "--jobs", "10", "--budgets", "yes"), "--budgets must be on or off (got 'yes')");
        oneClearLine(run("eta-cost", "--gpus", "16", "--jobs", "10", "--coverage", "70-17"), "'70-17' is not a Philly window; write SEED/TRACE-START-DAY");
        oneClearLine(run("eta-cost", "--gpus", "16", "--jobs", "10", "--trace-dir", "/tmp"), "--trace-dir is for --coverage");
        oneClearLine(run("eta-cost", "--gpus", "16", "--jobs", "10", "--coverage", "70/17", "--trace-dir", "/nonexistent"),
                "no philly-via-pollux/philly.csv under /nonexistent; give --trace-dir the traces folder");
        oneClearLine(run("eta-cost", "--gpus", "16", "--jobs", "10", "--coverage", "70/17", "--trace-dir", withPhillyLogOnly().toString()),
                "no alibaba-genai-v2026/lora_request_trace.csv under " + withPhillyLogOnly() + "; give --trace-dir the traces folder");
        // 298 jobs waiting on 16 GPUs, as many expected to arrive a day: most start only past the horizon, if at all
        Run playedRun = run("eta-cost", "--gpus", "16", "--jobs", "300");
        JsonNode played = JobJson.mapper().readTree(playedRun.out());
        // each of the futures says when it is played (after the 4 warm-up ones), and the slowest bounds the bands' time
        assertTrue(playedRun.err().contains("future " + StartBands.SAMPLES + " played in "), playedRun.err());
        assertTrue(played.path("slowestFutureMs").asLong() <= played.path("bandsMs").asLong(), played.toString());
        // one future at a time: the first 4 futures' bands come before the computation's end
        assertTrue(played.path("firstBandsMs").isIntegralNumber() && played.path("firstBandsMs").asLong() < played.path("bandsMs").asLong(), played.toString());
        JsonNode cut = JobJson.mapper().readTree(run("eta-cost", "--gpus", "16", "--jobs", "300", "--beyond-hours", "0").out());
        assertEquals(StartBands.BEYOND_HOURS, played.path("beyondHours").asInt());
        assertEquals(0, cut.path("beyondHours").asInt());
        assertEquals(298, played.path("waitingJobs").asInt());
        assertEquals(played.path("waitingJobs").asInt() - played.path("jobsWithP50AndP90").asInt(), played.path("queueAloneJobs").asInt(), played.toString());
        assertTrue(playedRun.err().contains("future " + (StartBands.SAMPLES + StartBands.QUEUE_ALONE_SAMPLES) + " played in "), playedRun.err());
        assertTrue(played.path("jobsWithP50AndP90").asInt() > cut.path("jobsWithP50AndP90").asInt(),
                "the futures played on past the horizon band jobs that start after it: " + played + " against " + cut);
    }

    @Test
    void latencyPrintsTheContractedJson() throws Exception {
        Run r = run("latency", "--gpus", "64", "--jobs", "30");
        assertEquals(0, r.code(), r.err());
        JsonNode n = JobJson.mapper().readTree(r.out());
        assertEquals(64, n.path("gpus").asInt());
        assertEquals(30, n.path("pendingJobs").asInt());
        assertEquals("heuristic", n.path("mode").asText());
        assertTrue(n.path("decisionLatencyMs").path("p99").asDouble() >= n.path("decisionLatencyMs").path("p50").asDouble());
    }

    @Test
    void pooledLatencyTimesEachPoolAndTheJointPlanOnTheSameMoments() throws Exception {
        Run r = run("latency", "--gpus", "128", "--jobs", "200", "--pools", "4", "--repeat", "2", "--threads", "2");
        assertEquals(0, r.code(), r.err());
        JsonNode n = JobJson.mapper().readTree(r.out());
        assertEquals(4, n.path("groups").asInt(), "jobs that accept one model each leave the pools independent");
        assertEquals(4, n.path("perGroup").size());
        assertEquals(32, n.path("perGroup").get(0).path("gpus").asInt());
        double joint = n.path("jointDecisionMs").path("p50").asDouble(), pooled = n.path("pooledDecisionMs").path("p50").asDouble();
        assertEquals(joint / pooled, n.path("speedup").asDouble(), 0.01 * joint / pooled);
        assertTrue(r.err().contains("joint p50"), r.err());
        // jobs accepting both models of a pair of pools (0-1, 2-3) tie each pair into one group
        Run tied = run("latency", "--gpus", "128", "--jobs", "200", "--pools", "4", "--repeat", "1", "--cross-pool", "0.2");
        JsonNode pairs = JobJson.mapper().readTree(tied.out());
        assertEquals(2, pairs.path("groups").asInt(), tied.err());
        assertEquals("H100-80GB+A100-80GB", pairs.path("perGroup").get(0).path("models").asText());
        assertEquals(64, pairs.path("perGroup").get(0).path("gpus").asInt());
    }

    @Test
    void simulateSaysWhyEachWaitingJobWaits() {
        Run r = run("simulate", "--scenario", "training-heavy", "--explain", "3");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("jobs still waiting at the end of the window; why:"), r.out());
        long reasons = r.out().lines().filter(l -> l.startsWith("  job-") && (l.contains("planned to start") || l.contains("no room"))).count();
        assertEquals(3, reasons, r.out());
        oneClearLine(run("simulate", "--scenario", "mixed", "--policy", "lsf"), "unknown policy 'lsf'");
    }

    @Test
    void helpListsTheOptions() {
        Run r = run("bench", "--help");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("--trace-start-day"));
    }
}
