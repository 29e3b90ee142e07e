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
 * {@code ./horizon why NAME|ID}, and the waiting rows of {@code ./horizon jobs}, against a stand-in control plane serving
 * canned answers in the REST contract's shape (the explanation's band, ahead and alternatives; the job and the job list;
 * the plan's waiting entries; the clock): what a person reads, line by line.
 */
class LauncherWhyTest {
    /** 2026-11-30 12:00 UTC, the control plane's clock. */
    private static final long NOON = 1_796_040_000L;
    private static final Map<String, String> ANSWERS = Map.of(
            "/api/v1/clock", "{\"now\":" + at(NOON) + ",\"virtual\":true}",
            "/api/v1/plan", "{\"pending\":[{\"jobId\":\"j1\",\"queuePosition\":1,\"rule\":\"planned-start\"},{\"jobId\":\"j3\",\"queuePosition\":2,"
                    + "\"rule\":\"over-share\"}]}",
            "/api/v1/jobs/j1", "{\"id\":\"j1\",\"name\":\"llama-sft\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":8,\"state\":\"PENDING\","
                    + "\"plannedStart\":" + at(NOON + 9000) + ",\"startP50At\":" + at(NOON + 9600) + ",\"startP90At\":" + at(NOON + 12000) + "}",
            "/api/v1/jobs/j1/explanation", "{\"id\":\"j1\",\"state\":\"PENDING\",\"rule\":\"planned-start\",\"reason\":\"planned to start when"
                    + " 8 GPUs free up\",\"plannedStart\":" + at(NOON + 9000) + ",\"plannedStartAt\":" + at(NOON + 9000) + ",\"startP50At\":" + at(NOON + 9600)
                    + ",\"startP90At\":" + at(NOON + 50400) + ",\"bandsAt\":" + at(NOON - 60) + ",\"rankedAheadByTeam\":{\"cv\":1},"
                    + "\"ahead\":[{\"team\":\"cv\",\"job\":\"j9\",\"service\":null,\"gpus\":8,\"reason\":\"priority 10 over 5\"},"
                    + "{\"team\":\"web\",\"job\":null,\"service\":\"chat\",\"gpus\":2,\"reason\":\"GPUs reserved for inference\"},"
                    + "{\"team\":\"ml\",\"job\":\"j2\",\"service\":null,\"gpus\":2,\"reason\":\"running until its estimated end\",\"untilAt\":"
                    + at(NOON + 5400) + "}],"
                    + "\"alternatives\":[{\"change\":\"ask for 4 GPUs instead of 8\",\"field\":\"gpus\",\"plannedStartAt\":" + at(NOON + 1200) + "},"
                    + "{\"change\":\"ask for gpuTypes [A100-80GB] instead of [H100-80GB]\",\"field\":\"perReplica.gpuTypes\",\"plannedStartAt\":"
                    + at(NOON + 4800) + "}]}",
            "/api/v1/jobs/0b5c7e2a-1d3f-4c8e-9a6b-2f4d8e1c7a90", "{\"id\":\"0b5c7e2a-1d3f-4c8e-9a6b-2f4d8e1c7a90\",\"team\":\"cv\",\"class\":\"TRAINING\",\"gpus\":64,\"state\":\"PENDING\"}",
            "/api/v1/jobs/0b5c7e2a-1d3f-4c8e-9a6b-2f4d8e1c7a90/explanation", "{\"id\":\"0b5c7e2a-1d3f-4c8e-9a6b-2f4d8e1c7a90\",\"state\":\"PENDING\",\"rule\":\"no-room-in-horizon\",\"reason\":\"no room for 64"
                    + " GPUs\",\"plannedStart\":null,\"plannedStartAt\":null,\"startP50At\":null,\"startP90At\":null,\"bandsAt\":" + at(NOON - 60)
                    + ",\"startBandNote\":\"no node that takes work now can hold it while node-3 (drained) is out\",\"ahead\":[],\"alternatives\":[{\"change\":\"ask for 32 GPUs instead of 64\",\"field\":\"gpus\",\"plannedStartAt\":"
                    + at(NOON + 7200) + "}]}",
            "/api/v1/jobs/j3", "{\"id\":\"j3\",\"name\":\"sweep-1\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":2,\"state\":\"PENDING\","
                    + "\"spec\":{\"replicas\":2,\"perReplica\":{\"gpuMilli\":500,\"memoryMiB\":40000}}}",
            "/api/v1/jobs/j3/explanation", "{\"id\":\"j3\",\"state\":\"PENDING\",\"rule\":\"over-share\",\"reason\":\"its team already runs all it is"
                    + " owed now (8.0 GPUs)\",\"plannedStart\":null,\"plannedStartAt\":null,\"startP50At\":" + at(NOON + 18000) + ",\"startP90At\":null,"
                    + "\"bandsAt\":" + at(NOON - 60) + ",\"startBandNote\":\"with odds 9 in 10 it starts later than where the futures end; were no more work to arrive ahead"
                    + " of it, it would start by " + at(NOON + 7200).replace("\"", "") + " with odds 1 in 2\",\"ahead\":"
                    + "[{\"team\":\"ml\",\"job\":\"j1\",\"service\":null,\"gpus\":1,\"reason\":\"priority 5 over 2\"}]}",
            "/api/v1/jobs/j2", "{\"id\":\"j2\",\"name\":\"eval\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":2,\"state\":\"RUNNING\","
                    + "\"startedAt\":" + at(NOON - 4500) + ",\"placement\":\"node-1[0-0]+node-2[3-3]\"}",
            "/api/v1/jobs/j2/explanation", "{\"id\":\"j2\",\"state\":\"RUNNING\",\"rule\":\"running\",\"reason\":\"running on node-1[0]+node-2[3]\","
                    + "\"plannedStartAt\":null,\"startP50At\":null,\"startP90At\":null,\"bandsAt\":null,\"alternatives\":[],\"ahead\":[]}");

    /**
     * A job explained at 11:45 on a demo's virtual clock, racing through the quiet hours: by the time the clock is read
     * after it, it says noon. The explanation's readAt is what its times are said from.
     */
    private static final String RACED = "7d1e9c40-5b2a-4f6e-8c3d-1a2b3c4d5e6f";
    private static final Map<String, String> READ_BEFORE_THE_CLOCK_MOVED = Map.of(
            "/api/v1/jobs/" + RACED, "{\"id\":\"" + RACED + "\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":8,\"state\":\"PENDING\"}",
            "/api/v1/jobs/" + RACED + "/explanation", "{\"id\":\"" + RACED + "\",\"state\":\"PENDING\",\"rule\":\"planned-start\",\"reason\":\"planned"
                    + " to start when 8 GPUs free up\",\"plannedStartAt\":" + at(NOON - 900 + 1800) + ",\"startP50At\":" + at(NOON - 900)
                    + ",\"startP90At\":" + at(NOON - 900 + 3600) + ",\"bandsAt\":" + at(NOON - 960) + ",\"ahead\":[],\"alternatives\":[],"
                    + "\"readAt\":" + at(NOON - 900) + "}");

    /** GET /api/v1/jobs without a name: the waiting j1 (8 GPUs, planned) and j3 (two half-GPU shares, over its team's share). */
    private static final String LIST = "[{\"id\":\"j1\",\"name\":\"llama-sft\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":8,\"state\":\"PENDING\","
            + "\"submittedAt\":" + at(NOON - 600) + ",\"plannedStart\":" + at(NOON + 9000) + ",\"startP50At\":" + at(NOON + 9600) + ",\"startP90At\":"
            + at(NOON + 12000) + ",\"spec\":{\"replicas\":1,\"perReplica\":{\"gpus\":8}}},"
            + "{\"id\":\"j3\",\"name\":\"sweep-1\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":2,\"state\":\"PENDING\",\"submittedAt\":"
            + at(NOON - 300) + ",\"startP50At\":" + at(NOON + 18000) + ",\"queueAloneP50At\":" + at(NOON + 7200) + ",\"queueAloneP90At\":" + at(NOON + 10800)
            + ",\"spec\":{\"replicas\":2,\"perReplica\":{\"gpuMilli\":500,\"memoryMiB\":40000}}}]";

    /** GET /api/v1/teams: a tree of three levels (org, program, team), listed as the store returns it, not in tree order. */
    private static final String TEAMS = "[{\"name\":\"nlp\",\"parent\":\"research\",\"share\":0.5,\"owedGpuHours\":12.0,\"deliveredGpuHours\":6.0,"
            + "\"owedGpuHoursDelivered\":0.5},{\"name\":\"applied\",\"parent\":\"org\",\"share\":0.4,\"owedGpuHours\":0.0,\"deliveredGpuHours\":0.0},"
            + "{\"name\":\"org\",\"share\":1,\"owedGpuHours\":0.0,\"deliveredGpuHours\":0.0},"
            + "{\"name\":\"research\",\"parent\":\"org\",\"share\":0.6,\"owedGpuHours\":0.0,\"deliveredGpuHours\":0.0}]";

    /** GET /api/v1/nodes: one node of one H100 split in two MIG instances. */
    private static final String NODES = "[{\"name\":\"node-a\",\"health\":\"HEALTHY\",\"source\":\"agent\",\"gpus\":[{\"index\":0,\"uuid\":\"GPU-1\","
            + "\"model\":\"H100-80GB\",\"migDevices\":[{\"profile\":\"3g.40gb\"},{\"profile\":\"3g.40gb\"}],\"utilization\":0.5}]}]";

    /** What the control plane refuses, by method and path: the error body in the API's shape, its status first. */
    private static final Map<String, String> REFUSALS = Map.of(
            "POST /api/v1/nodes/node-a/approval", "{\"status\":409,\"error\":\"node node-a is not waiting for approval; it is schedulable already\"}",
            "POST /api/v1/teams", "{\"status\":409,\"error\":\"team 'ml' already exists; PUT /api/v1/teams/ml/budget changes its share\"}",
            "POST /api/v1/tokens", "{\"status\":400,\"error\":\"invalid token\",\"problems\":[\"team: a submitter token needs its team\"]}",
            "DELETE /api/v1/nodes/node-a/drain", "{\"status\":409,\"error\":\"node node-a is not drained; PUT /api/v1/nodes/node-a/drain drains it\"}");

    /** A time as the API writes it (ISO-8601 UTC), quoted for JSON. */
    private static String at(long epochSeconds) {
        return "\"" + java.time.Instant.ofEpochSecond(epochSeconds) + "\"";
    }

    private HttpServer server;
    private final List<String> asked = new CopyOnWriteArrayList<>();
    /** What GET /api/v1/jobs without a name answers. */
    private volatile String list = LIST;
    /** What GET /api/v1/teams answers. */
    private volatile String teams = TEAMS;
    /** What GET /api/v1/tokens answers. */
    private volatile String tokens = "[]";
    /** When set, what every GET /api/v1/jobs answers: the first page (with a next cursor), then the second page. */
    private volatile List<String> pages;

    private record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/", exchange -> {
            asked.add(exchange.getRequestURI() + " " + exchange.getRequestHeaders().getFirst("Authorization"));
            String path = exchange.getRequestURI().getPath();
            String query = exchange.getRequestURI().getQuery();
            String refused = REFUSALS.get(exchange.getRequestMethod() + " " + path);
            if (refused != null) {
                byte[] body = refused.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(Integer.parseInt(refused.replaceAll("^\\{\"status\":(\\d+).*", "$1")), body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
                return;
            }
            String answer = path.equals("/api/v1/nodes") ? NODES : path.equals("/api/v1/jobs") ? (query != null && query.contains("name=") ? byName(query) : list) : path.equals("/api/v1/teams") ? teams
                    : path.equals("/api/v1/tokens") ? tokens : ANSWERS.getOrDefault(path, READ_BEFORE_THE_CLOCK_MOVED.get(path));
            if (path.equals("/api/v1/jobs") && pages != null) {
                boolean second = query.contains("cursor=page-2");
                answer = pages.get(second ? 1 : 0);
                if (!second) exchange.getResponseHeaders().add("Horizon-Next-Cursor", "page-2");
            }
            byte[] body = (answer == null ? "{\"status\":404,\"error\":\"no job " + exchange.getRequestURI().getPath() + "\"}" : answer)
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer == null ? 404 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/api/leader", exchange -> {
            byte[] body = "{\"self\":true,\"holder\":\"r1\",\"expired\":false,\"epoch\":3,\"replica\":\"r1\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    /** The name lookup (GET /api/v1/jobs?name=N) over the caller's team's jobs: j1, j2 and j3 of team ml. */
    private static String byName(String query) {
        String name = java.net.URLDecoder.decode(query.replaceAll(".*(^|&)name=([^&]*).*", "$2"), StandardCharsets.UTF_8);
        return switch (name) {
            case "llama-sft" -> "[{\"id\":\"j1\",\"name\":\"llama-sft\",\"team\":\"ml\",\"state\":\"PENDING\"}]";
            case "sweep-1" -> "[{\"id\":\"j3\",\"name\":\"sweep-1\",\"team\":\"ml\",\"state\":\"PENDING\"}]";
            case "eval" -> "[{\"id\":\"j0\",\"name\":\"eval\",\"team\":\"ml\",\"state\":\"SUCCEEDED\"},"
                    + "{\"id\":\"j2\",\"name\":\"eval\",\"team\":\"ml\",\"state\":\"RUNNING\"}]";
            // a name given every night: its finished runs, then the running one
            case "nightly" -> "[" + ("{\"id\":\"j0\",\"name\":\"nightly\",\"team\":\"ml\",\"state\":\"SUCCEEDED\",\"pad\":\"" + "p".repeat(200) + "\"},")
                    .repeat(999) + "{\"id\":\"j2\",\"name\":\"nightly\",\"team\":\"ml\",\"state\":\"RUNNING\"}]";
            default -> "[]";
        };
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private Run why(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("why"));
        command.addAll(List.of(args));
        return launcher(command.toArray(String[]::new));
    }

    private Run launcher(String... args) throws Exception {
        return launcherIn("UTC", args);
    }

    /** The launcher in the time zone tz. */
    private Run launcherIn(String tz, String... args) throws Exception {
        Horizon.Launched l = Horizon.launch(Map.of("TZ", tz, "HORIZON_URL", "http://127.0.0.1:" + server.getAddress().getPort(),
                "HORIZON_TOKEN", "tok"), args);
        return new Run(l.exit(), l.out(), l.err());
    }

    /** token list wrote the API's UTC times as they came, with no zone, beside jobs and why, which say local times. */
    @Test
    void tokenTimesAreInTheLocalZoneAsTheJobsTimesAre() throws Exception {
        tokens = "[{\"id\":\"tok-1\",\"role\":\"admin\",\"createdAt\":" + at(NOON - 600) + ",\"lastUsedAt\":" + at(NOON - 60)
                + ",\"expiresAt\":null,\"revokedAt\":null}]";
        Run tokenList = launcherIn("Asia/Kolkata", "token", "list");
        assertEquals(0, tokenList.exit(), tokenList.err());
        assertTrue(tokenList.out().contains(" 2026-11-30 17:20  2026-11-30 17:29 "), "11:50 and 11:59 UTC in India: " + tokenList.out());
    }

    @Test
    void aWaitingJobSaysItsPlannedStartBandWhoIsAheadAndWhatWouldStartItSooner() throws Exception {
        Run run = why("llama-sft");
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
    void timesAreSaidFromTheClockTheExplanationWasReadAtNotFromOneReadAfterIt() throws Exception {
        Run run = why(RACED);
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().contains("planned start: 12:15 (in 30 min) in the current plan"), run.out());
        assertTrue(run.out().contains("starts by 11:45 (now) with odds 1 in 2 (P50), by 12:45 (in 1 h) with odds 9 in 10 (P90)"),
                "a band is never before the clock it was read at, so it never reads as passed: " + run.out());
    }

    @Test
    void aJobWithNoStartWithinTheHorizonSaysSoAndWhatWouldGiveItOne() throws Exception {
        Run run = why("0b5c7e2a-1d3f-4c8e-9a6b-2f4d8e1c7a90");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                job 0b5c7e2a-1d3f-4c8e-9a6b-2f4d8e1c7a90, team cv, 64 GPUs: PENDING
                why it waits: no room for 64 GPUs
                planned start: none within the plan's horizon; the plan looks further ahead as work ends
                start band: none
                  no node that takes work now can hold it while node-3 (drained) is out
                planned before it on the GPUs it needs: nothing
                to start sooner (each re-planned now with the job changed):
                  ask for 32 GPUs instead of 64: planned start 14:00 (in 2 h), where now it has no start within the horizon
                """, run.out(), "another team's job, read without its name");
    }

    /**
     * Work over its team's share: unplanned, not about to be planned; the job's GPUs as it asked for them (two half-GPU
     * shares, not "1 GPU"), and the note's times in the clock's words like every other line, not ISO-8601 UTC.
     */
    @Test
    void workOverItsTeamsShareIsSaidToBeUnplannedNotAboutToBePlanned() throws Exception {
        Run run = why("sweep-1");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                job j3 (sweep-1), team ml, 2x500m: PENDING
                why it waits: its team already runs all it is owed now (8.0 GPUs)
                planned start: none; work over its team's share is not planned, it starts as fill when GPUs are idle
                starts by 17:00 (in 5 h) with odds 1 in 2 (P50)
                  with odds 9 in 10 it starts later than where the futures end; were no more work to arrive ahead of it, it would start by 14:00 (in 2 h) with odds 1 in 2
                planned before it on the GPUs it needs:
                  team ml, job j1: 1 GPU, priority 5 over 2
                """, run.out());
    }

    /**
     * ./horizon why NAME | head -1: the pipe closes under the listing, which ends as cat would, without a Python traceback
     * (`true` closes it before anything is written, so the write always finds it closed).
     */
    @Test
    void aPipeClosedEarlyEndsTheListingQuietly() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "./horizon why llama-sft | true").directory(Horizon.ROOT.toFile());
        pb.environment().put("HORIZON_URL", "http://127.0.0.1:" + server.getAddress().getPort());
        pb.environment().put("HORIZON_TOKEN", "tok");
        Process p = pb.start();
        p.getOutputStream().close();
        assertEquals("", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8), "true reads nothing");
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the pipeline did not end");
        assertEquals("", err, "nothing on stderr when the reader stops early");
    }

    /**
     * ./horizon jobs: a share job's GPUs as it asked for them (2x500m, not the 2 GPUs of its replicas), work over its team's
     * share as unplanned, and a P50 whose P90 the futures do not reach as open at its end, with when the queue alone would
     * start it.
     */
    @Test
    void theListSaysWhatEachJobAskedAndWhyOneHasNoPlannedStart() throws Exception {
        Run run = launcher("jobs");
        assertEquals(0, run.exit(), run.err());
        List<String> lines = run.out().lines().toList();
        assertEquals("    1  j1" + " ".repeat(36) + "llama-sft                ml           TRAINING                  8  PENDING   planned 14:30 (in 2 h 30 min)  "
                + "14:40 - 15:20", lines.get(1));
        assertEquals("    2  j3" + " ".repeat(36) + "sweep-1                  ml           TRAINING             2x500m  PENDING   none: over share, runs as fill "
                + "17:00 - later (if no more work arrives: 14:00 - 15:00)", lines.get(2));
    }

    /**
     * An id or team name went into the URL's path as typed: 'ID#x' revoked the token ID, and a space was said as the
     * control plane being out of reach.
     */
    @Test
    void anIdOrTeamNameThatIsNoneIsRefusedBeforeItReachesAPath() throws Exception {
        Run revoke = launcher("token", "revoke", "e6e45334b06e9b78#x");
        assertEquals(2, revoke.exit());
        assertEquals("horizon: token revoke: 'e6e45334b06e9b78#x' is not a token id (16 hex digits; ./horizon token list shows them)\n", revoke.err());
        Run budget = launcher("team", "budget", "ml ops", "--share", "0.2");
        assertEquals(2, budget.exit());
        assertEquals("horizon: team budget: 'ml ops' is not a team name (lower-case letters, digits and '-', 1 to 63 characters)\n", budget.err());
        assertEquals(List.of(), asked.stream().filter(a -> a.startsWith("/api/v1/tokens/") || a.startsWith("/api/v1/teams/")).toList());
    }

    /**
     * `node approve` a second time printed the API's raw 409 JSON and failed; approving is idempotent, as `kubectl
     * certificate approve` is.
     */
    @Test
    void approvingANodeTwiceSaysItIsApprovedAlready() throws Exception {
        Run again = launcher("node", "approve", "node-a");
        assertEquals(0, again.exit(), again.err());
        assertEquals("horizon: node node-a is approved already (or its token needed no approval); the planner places work on it, nothing to do\n",
                again.out());
        assertEquals("", again.err());
    }

    /** The admin commands printed a refusal as the API's raw JSON: they say its sentence, and its problems after it. */
    @Test
    void aRefusalIsTheApisSentenceNotItsJson() throws Exception {
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        Run team = launcher("team", "create", "ml", "--share", "0.2");
        assertEquals(2, team.exit());
        assertEquals("horizon: POST " + url + "/api/v1/teams answered 409: team 'ml' already exists; PUT /api/v1/teams/ml/budget changes its share\n",
                team.err());
        Run token = launcher("token", "create", "--role", "submitter");
        assertEquals(2, token.exit());
        assertEquals("horizon: POST " + url + "/api/v1/tokens answered 400: invalid token: team: a submitter token needs its team\n", token.err());
        Run undrain = launcher("node", "undrain", "node-a");
        assertEquals(2, undrain.exit());
        assertEquals("horizon: DELETE " + url + "/api/v1/nodes/node-a/drain answered 409: node node-a is not drained; PUT /api/v1/nodes/node-a/drain"
                + " drains it\n", undrain.err());
    }

    /** Out of reach: curl's reason and then an empty line, which broke "one line on stderr". */
    @Test
    void anUnreachableControlPlaneIsOneLine() throws Exception {
        Horizon.Launched l = Horizon.launch(Map.of("HORIZON_URL", "http://127.0.0.1:1", "HORIZON_TOKEN", "tok"), "jobs");
        assertEquals(2, l.exit());
        assertTrue(l.err().startsWith("horizon: cannot reach the control plane at http://127.0.0.1:1/api/v1/clock: (7) "), l.err());
        assertEquals(1, l.err().lines().count(), "one line: " + l.err());
    }

    /** --state took one state: squeue -t FAILED,CANCELLED users got a usage error. */
    @Test
    void severalStatesAreListedTogether() throws Exception {
        Run run = launcher("jobs", "--state", "failed,cancelled");
        assertEquals(0, run.exit(), run.err());
        assertTrue(asked.stream().anyMatch(a -> a.contains("&state=FAILED")) && asked.stream().anyMatch(a -> a.contains("&state=CANCELLED")), asked.toString());
        assertEquals(2, launcher("jobs", "--state", "failed,bogus").exit(), "every state is checked");
    }

    /** jobs --team with a typo listed "0 jobs waiting or running", as for a team with none. */
    @Test
    void jobsOfATeamThatDoesNotExistIsAnError() throws Exception {
        list = "[]";
        Run run = launcher("jobs", "--team", "mll");
        assertEquals(2, run.exit(), run.out());
        assertEquals("horizon: jobs: no team 'mll'; ./horizon team list lists them\n", run.err());
    }

    /** cancel took one job (scancel takes many): a sweep's jobs took a command each; one not found fails, not the others. */
    @Test
    void severalJobsAreCancelledInOneCommand() throws Exception {
        Run run = launcher("cancel", "llama-sft", "nope", "sweep-1");
        assertEquals(2, run.exit(), "one was not found");
        assertEquals("cancelled job j1 (llama-sft) of team ml\ncancelled job j3 (sweep-1) of team ml\n", run.out());
        assertEquals("horizon: no job named 'nope' in this token's team (an admin token finds any team's); ./horizon jobs lists them\n", run.err());
        assertTrue(asked.stream().anyMatch(a -> a.startsWith("/api/v1/jobs/j3 ")), "sweep-1 is cancelled after the one not found: " + asked);
    }

    /**
     * A running job's row said since when but not where: only status did, which squeue and kubectl -o wide users look for here.
     * One GPU reads as Slurm's nodelist says it, node-b[4], not the stored one-GPU range node-b[4-4].
     */
    @Test
    void aRunningJobSaysWhereItRuns() throws Exception {
        list = "[{\"id\":\"j2\",\"name\":\"eval\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":4,\"state\":\"RUNNING\",\"submittedAt\":"
                + at(NOON - 600) + ",\"startedAt\":" + at(NOON - 300) + ",\"placement\":\"node-a[0-1]+node-b[4-4]+node-c[2-2:3g.40gb@4]\"}]";
        Run run = launcher("jobs");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().lines().toList().get(1).endsWith("RUNNING   since 11:55 (5 min ago)        on node-a[0-1]+node-b[4]+node-c[2:3g.40gb@4]"),
                run.out());
        assertTrue(run.out().endsWith("\n1 job waiting or running\n"), "one job, not '1 jobs': " + run.out());
    }

    /** ./horizon status: the leader, each GPU with its MIG instances, and each active job with what it asked for, as jobs says it. */
    @Test
    void statusListsTheGpusAndWhatEachJobAskedFor() throws Exception {
        Run run = launcher("status");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith("leader: this replica, epoch 3; answering: r1\n"), run.out());
        assertTrue(run.out().contains("3g.40gb,3g.40gb"), run.out());
        assertTrue(run.out().contains("\n1 node, 1 GPU, 2 active jobs\n"), "not '1 nodes, 1 GPUs': " + run.out());
        assertTrue(asked.stream().filter(a -> a.startsWith("/api/v1/jobs?")).allMatch(a -> a.contains("&state=PENDING") || a.contains("&state=RUNNING")),
                "the waiting and running jobs only, not every page of a month's finished ones: " + asked);
        List<String> jobs = run.out().lines().filter(l -> l.startsWith("j1 ") || l.startsWith("j3 ")).toList();
        assertEquals(2, jobs.size(), run.out());
        assertTrue(jobs.get(0).contains(" TRAINING                   8  PENDING"), jobs.get(0));
        assertTrue(jobs.get(1).contains(" TRAINING              2x500m  PENDING"), "two half-GPU shares, not the 2 GPUs of its replicas: " + jobs.get(1));
        assertEquals(2, launcher("status", "--url").exit(), "an option without its value is a usage error");
    }

    /**
     * A cluster's worth of jobs: the list went to Python in an environment variable, which holds at most 128 KiB, so on
     * the demo's day (876 jobs) ./horizon jobs and status failed with "Argument list too long".
     */
    @Test
    void aListLargerThanAnEnvironmentVariableMayHoldIsListed() throws Exception {
        list = "[" + String.join(",", java.util.stream.IntStream.range(0, 700).mapToObj(i -> "{\"id\":\"job-" + i + "\",\"name\":\"sweep-" + i
                + "\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":1,\"state\":\"RUNNING\",\"submittedAt\":" + at(NOON - 600) + ",\"startedAt\":"
                + at(NOON - 300) + ",\"spec\":{\"replicas\":1,\"perReplica\":{\"gpus\":1},\"source\":{\"kind\":\"Job\",\"name\":\"" + "s".repeat(100)
                + "\"}}}").toList()) + "]";
        assertTrue(list.length() > 128 * 1024, "past what one variable may hold: " + list.length());
        Run run = launcher("jobs");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().endsWith("\n700 jobs waiting or running\n"), run.out().lines().reduce((a, b) -> b).orElse(""));
    }

    /** A name a thousand jobs were given (1,000 is the lookup's page, 250 KB here) is resolved to its active job. */
    @Test
    void aNameGivenToAThousandJobsResolvesToTheActiveOne() throws Exception {
        Run run = why("nightly");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith("job j2 (eval), team ml, 2 GPUs: RUNNING\n"), run.out());
    }

    /**
     * The job list is oldest first, a page at a time: jobs, status, why and cancel read its first page only, so past the
     * 10,000 jobs a month's retention easily keeps they listed none of the newest, and a name given to more jobs than a
     * page resolved to an old one.
     */
    @Test
    void jobsPastTheFirstPageAreListedAndFoundByName() throws Exception {
        pages = List.of("[{\"id\":\"j0\",\"name\":\"nightly\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":2,\"state\":\"SUCCEEDED\","
                + "\"submittedAt\":" + at(NOON - 90_000) + "}]", "[{\"id\":\"j2\",\"name\":\"nightly\",\"team\":\"ml\",\"class\":\"TRAINING\","
                + "\"gpus\":2,\"state\":\"RUNNING\",\"submittedAt\":" + at(NOON - 600) + ",\"startedAt\":" + at(NOON - 300) + "}]");
        Run jobs = launcher("jobs");
        assertEquals(0, jobs.exit(), jobs.err());
        assertTrue(jobs.out().lines().anyMatch(l -> l.contains(" j2 ") && l.contains("RUNNING")), jobs.out());
        Run status = launcher("status");
        assertTrue(status.out().lines().anyMatch(l -> l.startsWith("j2 ")), status.out());
        Run why = why("nightly");
        assertTrue(why.out().startsWith("job j2 (eval), team ml, 2 GPUs: RUNNING\n"), why.out() + why.err());
        assertTrue(asked.stream().anyMatch(a -> a.contains("cursor=page-2")), "the second page was asked for: " + asked);
    }

    /** ./horizon team list: each team under its parent, however deep the tree, whatever order the store returns. */
    @Test
    void theTeamsAreListedAsTheirTree() throws Exception {
        Run run = launcher("team", "list");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                TEAM                     PARENT                    SHARE OF PARENT  OWED GPU-H   RUN GPU-H  DELIVERED (7 days)
                org                      -                             1      100%         0.0         0.0  -
                  applied                org                         0.4       40%         0.0         0.0  -
                  research               org                         0.6       60%         0.0         0.0  -
                    nlp                  research                    0.5      100%        12.0         6.0  50%
                4 teams
                """, run.out());
    }

    /**
     * A large organization's teams and tokens: team list and token list passed the API's answer to Python in an
     * environment variable, which holds at most 128 KiB, so they failed with "Argument list too long" as jobs did.
     */
    @Test
    void teamAndTokenListsLargerThanAnEnvironmentVariableMayHoldAreListed() throws Exception {
        teams = "[{\"name\":\"org\",\"share\":1,\"owedGpuHours\":0.0,\"deliveredGpuHours\":0.0}," + String.join(",", java.util.stream.IntStream
                .range(0, 1000).mapToObj(i -> "{\"name\":\"team-" + i + "\",\"parent\":\"org\",\"share\":0.001,\"owedGpuHours\":1.0,"
                        + "\"deliveredGpuHours\":1.0,\"owedGpuHoursDelivered\":1.0,\"pad\":\"" + "p".repeat(60) + "\"}").toList()) + "]";
        assertTrue(teams.length() > 128 * 1024, "past what one variable may hold: " + teams.length());
        Run teamList = launcher("team", "list");
        assertEquals(0, teamList.exit(), teamList.err());
        assertTrue(teamList.out().endsWith("\n1001 teams\n"), teamList.out().lines().reduce((a, b) -> b).orElse(""));

        tokens = "[" + String.join(",", java.util.stream.IntStream.range(0, 700).mapToObj(i -> "{\"id\":\"tok-" + i + "\",\"role\":\"agent\","
                + "\"node\":\"node-" + i + "\",\"label\":\"" + "l".repeat(100) + "\",\"createdAt\":" + at(NOON - 600) + ",\"lastUsedAt\":"
                + at(NOON - 60) + ",\"expiresAt\":null,\"revokedAt\":null}").toList()) + "]";
        assertTrue(tokens.length() > 128 * 1024, "past what one variable may hold: " + tokens.length());
        Run tokenList = launcher("token", "list");
        assertEquals(0, tokenList.exit(), tokenList.err());
        assertEquals(701, tokenList.out().lines().count(), "a heading and 700 tokens");
        assertTrue(tokenList.out().lines().reduce((a, b) -> b).orElse("").startsWith("tok-699 "), tokenList.out());
    }

    /** Where it runs as ./horizon jobs says it: node-1[0] for one GPU, not the control plane's stored node-1[0-0]. */
    @Test
    void aRunningJobSaysWhereAndSince() throws Exception {
        Run run = why("eval");
        assertEquals(0, run.exit(), run.err());
        assertEquals("""
                job j2 (eval), team ml, 2 GPUs: RUNNING
                running since 10:45 (1 h 15 min ago) on node-1[0]+node-2[3]
                """, run.out());
    }

    /** Every command takes --help, also after its subcommand and arguments: `token create --help` was an unknown option. */
    @Test
    void anAdminSubcommandTakesHelpAnywhere() throws Exception {
        for (String[] args : List.of(new String[] {"token", "create", "--help"}, new String[] {"team", "create", "ml", "--help"},
                new String[] {"node", "drain", "gpu-1", "--reason", "r", "-h"})) {
            Run help = launcher(args);
            assertEquals(0, help.exit(), String.join(" ", args) + ": " + help.err());
            assertTrue(help.out().startsWith("usage: ./horizon " + args[0] + " "), help.out());
        }
        assertTrue(asked.isEmpty(), "asking for help calls no endpoint: " + asked);
    }

    @Test
    void anUnknownJobOrBadInputIsOneLineAndExitTwo() throws Exception {
        Run missing = why("nope");
        assertEquals(2, missing.exit());
        assertEquals("", missing.out());
        assertEquals("horizon: no job named 'nope' in this token's team (an admin token finds any team's); ./horizon jobs lists them\n", missing.err());
        Run gone = why("6d1e8f4a-0c2b-4f7e-8a9d-3b5c7e1f2a40");
        assertEquals(2, gone.exit());
        assertTrue(gone.err().startsWith("horizon: GET http://127.0.0.1:") && gone.err().contains("/api/v1/jobs/6d1e8f4a-0c2b-4f7e-8a9d-3b5c7e1f2a40 answered 404")
                && gone.err().strip().lines().count() == 1, gone.err());
        Run none = why();
        assertEquals(2, none.exit());
        assertEquals("horizon: why needs a job's NAME or ID (./horizon jobs lists them); see ./horizon why --help\n", none.err());
        assertEquals(2, why("j1", "j2").exit());
        assertEquals(2, why("../clock").exit(), "a name, looked up as one: no path of the API is reached through it");
        assertTrue(asked.stream().noneMatch(a -> a.startsWith("/api/v1/clock")), "nothing went past the lookup: " + asked);
    }
}
