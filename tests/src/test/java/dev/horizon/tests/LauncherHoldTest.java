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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ./horizon hold and release (Slurm's scontrol hold and release) by name, as cancel takes them: several at once, each
 * name looked up in the token's team, one refused said on stderr while the others go on, exit 2; and ./horizon jobs
 * shows a held job as held. Against a stand-in control plane answering in the REST contract's shape.
 */
class LauncherHoldTest {
    /** 2026-11-30 12:00 UTC, the control plane's clock. */
    private static final String NOON = "2026-11-30T12:00:00Z";
    private static final String HELD_AT = "2026-11-30T11:50:00Z";
    private static final String BY = "token 7f3a (submitter of team ml)";
    /** llama-sft (j1) waits, eval (j2) runs: what the name lookup of team ml finds. */
    private static final Map<String, String> BY_NAME = Map.of(
            "llama-sft", "[{\"id\":\"j1\",\"name\":\"llama-sft\",\"team\":\"ml\",\"state\":\"PENDING\"}]",
            "eval", "[{\"id\":\"j2\",\"name\":\"eval\",\"team\":\"ml\",\"state\":\"RUNNING\"}]",
            "sweep-1", "[{\"id\":\"j3\",\"name\":\"sweep-1\",\"team\":\"ml\",\"state\":\"PENDING\"}]");
    private static final String HELD_J1 = "{\"id\":\"j1\",\"name\":\"llama-sft\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":8,\"state\":\"PENDING\","
            + "\"submittedAt\":\"2026-11-30T11:40:00Z\",\"heldBy\":\"" + BY + "\",\"heldAt\":\"" + HELD_AT + "\",\"startBandNote\":\"held since " + HELD_AT
            + ": no plan places it, so it has no start band until it is released\",\"spec\":{\"replicas\":1,\"perReplica\":{\"gpus\":8}}}";
    private static final String J3 = "{\"id\":\"j3\",\"name\":\"sweep-1\",\"team\":\"ml\",\"class\":\"TRAINING\",\"gpus\":1,\"state\":\"PENDING\","
            + "\"submittedAt\":\"2026-11-30T11:45:00Z\",\"spec\":{\"replicas\":1,\"perReplica\":{\"gpus\":1}}}";
    /** What the control plane answers, by method and path: status, then body. */
    private static final Map<String, String> ANSWERS = Map.of(
            "POST /api/v1/jobs/j1/hold", "200 {\"said\":\"held job j1\",\"job\":" + HELD_J1 + "}",
            "POST /api/v1/jobs/j2/hold", "409 {\"status\":409,\"error\":\"job j2 is RUNNING and only a waiting (PENDING) job can be held; cancel it, or wait"
                    + " for it to end\"}",
            "POST /api/v1/jobs/j3/hold", "200 {\"said\":\"held job j3\",\"job\":" + J3.replace("\"state\"", "\"heldAt\":\"" + HELD_AT + "\",\"state\"") + "}",
            "POST /api/v1/jobs/j1/release", "200 {\"said\":\"released job j1, held by " + BY + " since " + HELD_AT + "\",\"job\":" + J3.replace("j3", "j1")
                    .replace("sweep-1", "llama-sft") + "}",
            "POST /api/v1/jobs/j3/release", "200 {\"said\":\"job j3 was not held (PENDING); nothing changed\",\"job\":" + J3 + "}",
            "GET /api/v1/jobs", "200 [" + HELD_J1 + "," + J3 + "]",
            "GET /api/v1/plan", "200 {\"pending\":[{\"jobId\":\"j3\",\"queuePosition\":1,\"rule\":\"planned-start\"},{\"jobId\":\"j1\",\"queuePosition\":null,"
                    + "\"rule\":\"held\",\"heldAt\":\"" + HELD_AT + "\"}]}",
            "GET /api/v1/clock", "200 {\"now\":\"" + NOON + "\",\"virtual\":true}",
            "GET /api/v1/jobs/j1", "200 " + HELD_J1,
            "GET /api/v1/jobs/j1/explanation", "200 {\"id\":\"j1\",\"state\":\"PENDING\",\"rule\":\"held\",\"reason\":\"held by " + BY + " since " + HELD_AT
                    + "; ./horizon release llama-sft lets it start\",\"plannedStartAt\":null,\"startP50At\":null,\"startP90At\":null,\"bandsAt\":null,"
                    + "\"startBandNote\":\"held since " + HELD_AT + ": no plan places it, so it has no start band until it is released\",\"alternatives\":[],"
                    + "\"ahead\":[],\"readAt\":\"" + NOON + "\"}");

    private HttpServer server;
    private final List<String> asked = new CopyOnWriteArrayList<>();

    private record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/", exchange -> {
            String call = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
            asked.add(call);
            String query = exchange.getRequestURI().getQuery();
            String answer = query != null && query.contains("name=")
                    ? "200 " + BY_NAME.getOrDefault(java.net.URLDecoder.decode(query.replaceAll(".*(^|&)name=([^&]*).*", "$2"), StandardCharsets.UTF_8), "[]")
                    : ANSWERS.getOrDefault(call, "404 {\"status\":404,\"error\":\"no " + call + "\"}");
            byte[] body = answer.substring(4).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(Integer.parseInt(answer.substring(0, 3)), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private Run launcher(String... args) throws Exception {
        Horizon.Launched l = Horizon.launch(Map.of("TZ", "UTC", "HORIZON_URL", "http://127.0.0.1:" + server.getAddress().getPort(), "HORIZON_TOKEN", "tok"),
                args);
        return new Run(l.exit(), l.out(), l.err());
    }

    @Test
    void jobsAreHeldByNameAndARunningOneIsRefusedWithoutStoppingTheOthers() throws Exception {
        Run run = launcher("hold", "llama-sft", "eval", "nope", "sweep-1");
        assertEquals(2, run.exit(), "eval runs and nope is none: " + run.err());
        assertEquals("held job j1 (llama-sft, team ml)\nheld job j3 (sweep-1, team ml)\n", run.out());
        assertEquals("horizon: POST http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/jobs/j2/hold answered 409: job j2 is RUNNING and only a"
                + " waiting (PENDING) job can be held; cancel it, or wait for it to end\n"
                + "horizon: no job named 'nope' in this token's team (an admin token finds any team's); ./horizon jobs lists them\n", run.err());
        assertTrue(asked.containsAll(List.of("POST /api/v1/jobs/j1/hold", "POST /api/v1/jobs/j3/hold")), "each is held by a POST: " + asked);
    }

    @Test
    void releaseSaysWhoHeldTheJobAndAJobNotHeldIsNoError() throws Exception {
        Run run = launcher("release", "llama-sft", "sweep-1");
        assertEquals(0, run.exit(), run.err());
        assertEquals("released job j1, held by " + BY + " since " + HELD_AT + " (llama-sft, team ml)\n"
                + "job j3 was not held (PENDING); nothing changed (sweep-1, team ml)\n", run.out());
    }

    @Test
    void theJobListAndWhyShowAHeldJobAsHeldInPlaceOfAPlannedStartAndBand() throws Exception {
        Run run = launcher("jobs");
        assertEquals(0, run.exit(), run.err());
        String held = run.out().lines().filter(l -> l.contains("llama-sft")).findFirst().orElseThrow();
        assertTrue(held.matches(".*PENDING +none: held +held$"), "no planned start and no band, but held: " + run.out());
        Run why = launcher("why", "llama-sft");
        assertEquals(0, why.exit(), why.err());
        assertTrue(why.out().contains("why it waits: held by " + BY + " since 11:50 (10 min ago); ./horizon release llama-sft lets it start\n"
                + "planned start: none while it is held (the reason says who holds it); no plan places it until it is released\n"), why.out());
        assertTrue(launcher("hold", "--help").out().contains("./horizon release lets it go"), "hold's help says how to let a job go");
        assertTrue(launcher("help").out().contains("  hold  "), "the launcher's list names hold");
    }
}
