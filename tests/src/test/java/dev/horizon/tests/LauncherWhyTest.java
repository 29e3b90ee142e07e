package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ./horizon why JOB_ID} against a stand-in control plane serving canned answers in the REST contract's shape (the
 * explanation's band, ahead and alternatives; the job; the clock): what a person reads, line by line.
 */
class LauncherWhyTest {
    /** 2026-11-30 12:00 UTC, the control plane's clock. */
    private static final long NOON = 1_796_040_000L;
    private static final Map<String, String> ANSWERS = Map.of(
            "/api/v1/clock", "{\"now\":" + NOON * 1000 + ",\"virtual\":true}",
            "/api/v1/jobs/j1", "{\"id\":\"j1\",\"name\":\"llama-sft\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":8,\"state\":\"PENDING\","
                    + "\"plannedStart\":" + (NOON + 9000) + ",\"startP50At\":" + (NOON + 9600) + ",\"startP90At\":" + (NOON + 12000) + "}",
            "/api/v1/jobs/j1/explanation", "{\"id\":\"j1\",\"state\":\"PENDING\",\"rule\":\"planned-start\",\"reason\":\"planned to start when"
                    + " 8 GPUs free up\",\"plannedStart\":" + (NOON + 9000) + ",\"plannedStartAt\":" + (NOON + 9000) + ",\"startP50At\":" + (NOON + 9600)
                    + ",\"startP90At\":" + (NOON + 50400) + ",\"bandsAt\":" + (NOON - 60) + ",\"rankedAheadByTeam\":{\"cv\":1},"
                    + "\"ahead\":[{\"team\":\"cv\",\"job\":\"j9\",\"service\":null,\"gpus\":8,\"reason\":\"priority 10 over 5\"},"
                    + "{\"team\":\"web\",\"job\":null,\"service\":\"chat\",\"gpus\":2,\"reason\":\"GPUs reserved for inference\"},"
                    + "{\"team\":\"ml\",\"job\":\"j2\",\"service\":null,\"gpus\":2,\"reason\":\"running until its estimated end\",\"untilAt\":"
                    + (NOON + 5400) + "}],"
                    + "\"alternatives\":[{\"change\":\"ask for 4 GPUs instead of 8\",\"field\":\"gpus\",\"plannedStartAt\":" + (NOON + 1200) + "},"
                    + "{\"change\":\"ask for gpuTypes [A100-80GB] instead of [H100-80GB]\",\"field\":\"perReplica.gpuTypes\",\"plannedStartAt\":"
                    + (NOON + 4800) + "}]}",
            "/api/v1/jobs/j3", "{\"id\":\"j3\",\"team\":\"cv\",\"class\":\"TRAINING\",\"gpus\":64,\"state\":\"PENDING\"}",
            "/api/v1/jobs/j3/explanation", "{\"id\":\"j3\",\"state\":\"PENDING\",\"rule\":\"no-room-in-horizon\",\"reason\":\"no room for 64"
                    + " GPUs\",\"plannedStart\":null,\"plannedStartAt\":null,\"startP50At\":null,\"startP90At\":null,\"bandsAt\":" + (NOON - 60)
                    + ",\"startBandNote\":\"no node that takes work now can hold it while node-3 (drained) is out\",\"ahead\":[],\"alternatives\":[{\"change\":\"ask for 32 GPUs instead of 64\",\"field\":\"gpus\",\"plannedStartAt\":"
                    + (NOON + 7200) + "}]}",
            "/api/v1/jobs/j2", "{\"id\":\"j2\",\"name\":\"eval\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":2,\"state\":\"RUNNING\","
                    + "\"startedAt\":" + (NOON - 4500) + ",\"placement\":\"node-1[0-1]\"}",
            "/api/v1/jobs/j2/explanation", "{\"id\":\"j2\",\"state\":\"RUNNING\",\"rule\":\"running\",\"reason\":\"running on node-1[0-1]\","
                    + "\"plannedStartAt\":null,\"startP50At\":null,\"startP90At\":null,\"bandsAt\":null,\"alternatives\":[],\"ahead\":[]}");

    private HttpServer server;
    private final List<String> asked = new CopyOnWriteArrayList<>();

    private record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/", exchange -> {
            asked.add(exchange.getRequestURI() + " " + exchange.getRequestHeaders().getFirst("Authorization"));
            String answer = ANSWERS.get(exchange.getRequestURI().getPath());
            byte[] body = (answer == null ? "{\"status\":404,\"error\":\"no job " + exchange.getRequestURI().getPath() + "\"}" : answer)
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer == null ? 404 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private Run why(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Horizon.ROOT.resolve("horizon").toString(), "why"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(Horizon.ROOT.toFile());
        pb.environment().put("TZ", "UTC");
        pb.environment().put("HORIZON_URL", "http://127.0.0.1:" + server.getAddress().getPort());
        pb.environment().put("HORIZON_TOKEN", "tok");
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "./horizon why did not end");
        return new Run(p.exitValue(), out, err);
    }

    @Test
    void aWaitingJobSaysItsPlannedStartBandWhoIsAheadAndWhatWouldStartItSooner() throws Exception {
        Run run = why("j1");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                job j1 (llama-sft), team ml, 8 GPUs: PENDING
                why it waits: planned to start when 8 GPUs free up
                planned start: 14:30 (in 2 h 30 min) in the current plan
                starts by 14:40 (in 2 h 40 min) with odds 1 in 2 (P50), by Tue 1 Dec 02:00 (in 14 h) with odds 9 in 10 (P90)
                  from the running and queued work's duration estimates, the inference forecast and expected arrivals, as of 11:59 (1 min ago)
                ranked ahead in the queue: team cv (1 job)
                planned before it on the GPUs it needs:
                  team cv, job j9: 8 GPUs, priority 10 over 5
                  team web, inference service chat: 2 GPUs, GPUs reserved for inference
                  team ml, job j2: 2 GPUs, running until its estimated end, about 13:30 (in 1 h 30 min)
                to start sooner (each re-planned now with the job changed):
                  ask for 4 GPUs instead of 8: planned start 12:20 (in 20 min), 2 h 10 min sooner
                  ask for gpuTypes [A100-80GB] instead of [H100-80GB]: planned start 13:20 (in 1 h 20 min), 1 h 10 min sooner
                """, run.out());
        assertTrue(asked.contains("/api/v1/jobs/j1/explanation Bearer tok"), "a person's why asks with the alternatives: " + asked);
    }

    @Test
    void aJobWithNoStartWithinTheHorizonSaysSoAndWhatWouldGiveItOne() throws Exception {
        Run run = why("j3");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                job j3, team cv, 64 GPUs: PENDING
                why it waits: no room for 64 GPUs
                planned start: none within the plan's horizon; the plan looks further ahead as work ends
                start band: none
                  no node that takes work now can hold it while node-3 (drained) is out
                planned before it on the GPUs it needs: nothing
                to start sooner (each re-planned now with the job changed):
                  ask for 32 GPUs instead of 64: planned start 14:00 (in 2 h), where now it has no start within the horizon
                """, run.out(), "another team's job, read without its name");
    }

    @Test
    void aRunningJobSaysWhereAndSince() throws Exception {
        Run run = why("j2");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                job j2 (eval), team ml, 2 GPUs: RUNNING
                running since 10:45 (1 h 15 min ago) on node-1[0-1]
                """, run.out());
    }

    @Test
    void anUnknownJobOrBadInputIsOneLineAndExitTwo() throws Exception {
        Run missing = why("nope");
        assertEquals(2, missing.exit());
        assertEquals("", missing.out());
        assertTrue(missing.err().startsWith("horizon: GET http://127.0.0.1:") && missing.err().contains("/api/v1/jobs/nope answered 404")
                && missing.err().strip().lines().count() == 1, missing.err());
        Run none = why();
        assertEquals(2, none.exit());
        assertEquals("horizon: why needs a JOB_ID (./horizon status lists them); see ./horizon why --help\n", none.err());
        assertEquals(2, why("j1", "j2").exit());
        assertEquals(2, why("../clock").exit(), "not a job id: no path of the API is reached through it");
    }
}
