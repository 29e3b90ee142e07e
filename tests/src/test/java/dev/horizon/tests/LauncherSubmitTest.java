package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./horizon submit FILE} against a stand-in control plane that records every job POSTed: what a user's file
 * becomes, and the one line a broken file gets before anything is sent.
 */
class LauncherSubmitTest {
    private HttpServer server;
    private final List<String> posted = new CopyOnWriteArrayList<>();
    private final List<String> keys = new CopyOnWriteArrayList<>();
    /** The ids of the jobs cancelled (DELETE /api/v1/jobs/ID), in order. */
    private final List<String> cancelled = new CopyOnWriteArrayList<>();
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/jobs", exchange -> {
            if (exchange.getRequestMethod().equals("DELETE")) {
                String id = exchange.getRequestURI().getPath().substring("/api/v1/jobs/".length());
                cancelled.add(id);
                answer(exchange, 200, "{\"id\":\"" + id + "\",\"team\":\"ml\",\"state\":\"CANCELLED\"}");
                return;
            }
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            posted.add(body);
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            keys.add(String.valueOf(key));
            // the answer to the first try of a job named "lost" is lost on the way: the connection closes unanswered
            // and of every try of a job named "always-lost"
            if (body.contains("\"name\": \"lost\"") && keys.stream().filter(String.valueOf(key)::equals).count() == 1
                    || body.contains("\"name\": \"always-lost\"")) {
                exchange.close();
                return;
            }
            // a job of team "other" is refused, as a submitter token of another team is, and one of 16 GPUs a replica as the API refuses it
            if (body.contains("\"team\": \"other\"")) {
                answer(exchange, 403, "{\"status\":403,\"error\":\"this token cannot act for team 'other'\"}");
            } else if (body.contains("\"gpus\": 16")) {
                answer(exchange, 400, "{\"status\":400,\"error\":\"invalid job\",\"problems\":"
                        + "[\"perReplica.gpus must be between 1 and 8, the GPUs of one host (got 16)\"]}");
            } else {
                answer(exchange, 201, "{\"id\":\"00000000-0000-4000-8000-00000000000" + posted.size() % 10 + "\",\"name\":\"j" + posted.size()
                        + "\",\"team\":\"ml\",\"state\":\"PENDING\"}");
            }
        });
        server.start();
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private Run submit(String content) throws Exception {
        Path file = dir.resolve("jobs.json");
        Files.writeString(file, content);
        Horizon.Launched l = Horizon.launch(Map.of("HORIZON_URL", "http://127.0.0.1:" + server.getAddress().getPort(), "HORIZON_TOKEN", "tok"),
                "submit", file.toString());
        return new Run(l.exit(), l.out(), l.err().replace(file.toString(), "FILE"));
    }

    private static String job(String name, String team, String extra) {
        return "{\"name\":\"" + name + "\",\"team\":\"" + team + "\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}" + extra + "}";
    }

    /**
     * A file past 128 KiB, the most one argument or environment variable may hold: it went to Python in the environment,
     * which failed with "Argument list too long", said the file was not valid JSON and exited 0 with nothing submitted.
     */
    @Test
    void aFileLargerThanAnArgumentMayBeIsSubmittedWhole() throws Exception {
        String pad = ",\"source\":{\"kind\":\"Job\",\"name\":\"" + "s".repeat(50_000) + "\"}";
        Run run = submit("[" + job("a", "ml", pad) + "," + job("b", "ml", pad) + "," + job("c", "ml", pad) + "]");
        assertEquals(0, run.exit(), run.err());
        assertEquals(3, posted.size(), "every job of the array is sent: " + run.err());
        assertTrue(posted.get(2).contains("\"name\": \"c\"") && posted.get(2).length() > 50_000, "each whole");
        assertEquals(3, run.out().lines().filter(l -> l.startsWith("submitted job ")).count(), run.out());
    }

    @Test
    void aJsonTypoIsNamedWhereItIsAndNothingIsSent() throws Exception {
        Run run = submit("{\"name\":\"broken\",\"team\":\"ml\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":1},}\n");
        assertEquals(2, run.exit());
        assertEquals("horizon: submit: FILE is not valid JSON (line 1, column 73): Expecting property name enclosed in double quotes\n", run.err());
        Run empty = submit("\n");
        assertEquals(2, empty.exit());
        assertEquals("horizon: submit: FILE is empty; give a scheduler job JSON (an object or an array) or a Kubeflow or KubeRay manifest\n", empty.err());
        Run none = submit("[]");
        assertEquals(2, none.exit(), "an empty array submits nothing, and says so");
        assertEquals("horizon: submit: FILE holds no job (an empty array)\n", none.err());
        assertEquals(List.of(), posted);
    }

    /** The control plane refuses a key given twice; the launcher's own reading must not quietly keep the last one. */
    @Test
    void aKeyGivenTwiceIsRefusedNotRewritten() throws Exception {
        Run run = submit("{\"name\":\"a\",\"name\":\"b\",\"team\":\"ml\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}}");
        assertEquals(2, run.exit());
        assertEquals("horizon: submit: FILE: the key 'name' is given twice in one object; give each field once\n", run.err());
        assertEquals(List.of(), posted);
    }

    @Test
    void aJobRefusedInAnArraySaysWhichAndThatTheOnesBeforeItWentIn() throws Exception {
        Run run = submit("[" + job("a", "ml", "") + "," + job("b", "other", "") + "," + job("c", "ml", "") + "]");
        assertEquals(2, run.exit());
        assertEquals(1, run.out().lines().count(), run.out());
        List<String> err = run.err().lines().toList();
        assertEquals(2, err.size(), run.err());
        assertTrue(err.get(0).contains("answered 403"), run.err());
        assertEquals("horizon: submit: job 2 of 3 was refused and none after it was sent; the first 1 went in (above)", err.get(1));
        assertEquals(2, posted.size(), "nothing after the refused job");
    }

    /**
     * A manifest that becomes several jobs (a RayCluster's groups) whose later job is refused: the ones before it stayed
     * in, part of a gang waiting for GPUs it could never use, where the Kubeflow and Ray controllers cancel them. They are
     * withdrawn and named, beside the API's own words for the refused field; another workload's job in the file stays in.
     */
    @Test
    void aManifestWhoseLaterJobIsRefusedIsWithdrawnWhole() throws Exception {
        String ray = ",\"source\":{\"kind\":\"RayCluster\",\"namespace\":\"ml\",\"name\":\"llm\"}";
        String bert = ",\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"ml\",\"name\":\"bert\"}";
        String big = "{\"name\":\"llm-big\",\"team\":\"ml\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":16}" + ray + "}";
        Run run = submit("[" + job("bert", "ml", bert) + "," + job("llm-head", "ml", ray) + "," + job("llm-workers", "ml", ray) + "," + big + ","
                + job("llm-last", "ml", ray) + "]");
        assertEquals(2, run.exit(), run.err());
        assertEquals(4, posted.size(), "nothing after the refused job");
        assertEquals(List.of("00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003"), cancelled,
                "the RayCluster's two jobs made before it, not the PyTorchJob's");
        List<String> err = run.err().lines().toList();
        assertEquals(2, err.size(), run.err());
        assertTrue(err.get(0).endsWith("answered 400: invalid job: perReplica.gpus must be between 1 and 8, the GPUs of one host (got 16)"), err.get(0));
        assertEquals("horizon: submit: job 4 of 5 was refused and none after it was sent; the 2 of RayCluster ml/llm before it were withdrawn"
                + " (cancelled: 00000000-0000-4000-8000-000000000002 (j2), 00000000-0000-4000-8000-000000000003 (j3)), so none of RayCluster ml/llm"
                + " waits without the rest; the 1 of other workloads went in (above); fix the refused job and submit FILE again", err.get(1));
    }

    /**
     * A job whose answer was lost after the control plane took it: the launcher sent no Idempotency-Key and did not
     * retry, so the user saw "cannot reach", and running the command again made the job twice.
     */
    @Test
    void aLostAnswerIsRetriedWithTheJobsOwnKeySoItIsMadeOnce() throws Exception {
        Run run = submit("[" + job("a", "ml", "") + "," + job("lost", "ml", "") + "]");
        assertEquals(0, run.exit(), run.err());
        assertEquals(3, posted.size(), "the lost one is sent again: " + run.err());
        assertEquals(keys.get(1), keys.get(2), "the retry carries its first try's key");
        assertTrue(keys.get(1).matches("[0-9a-f-]{36}") && !keys.get(0).equals(keys.get(1)), "a key of its own per job: " + keys);
        assertEquals(2, run.out().lines().filter(l -> l.startsWith("submitted job ")).count(), run.out());
        assertTrue(run.err().contains("retrying in 1 s with the same Idempotency-Key, so the job is made once"), run.err());
    }

    /** Every answer lost: the job may be in, which "cannot reach the control plane" denied, so the user submitted it again. */
    @Test
    void anAnswerLostEveryTimeSaysTheJobMayBeIn() throws Exception {
        Run run = submit(job("always-lost", "ml", ""));
        assertEquals(2, run.exit());
        assertEquals(5, posted.size(), "a first try and 4 retries: " + run.err());
        assertTrue(run.err().lines().reduce((a, b) -> b).orElse("").matches("horizon: submit: no answer from the control plane at \\S+ after 5 tries"
                + " \\(.+\\); it may hold the job: ./horizon jobs lists it, and submitting again makes another"), run.err());
    }

    /**
     * ./horizon submit FILE | head -1: the reader stops after the first line, and the submission goes on to the end
     * unprinted rather than stopping half-way with some of the array sent (`true` closes the pipe before anything is read).
     */
    @Test
    void aReaderThatStopsEarlyDoesNotStopTheSubmissionHalfWay() throws Exception {
        Path file = dir.resolve("jobs.json");
        Files.writeString(file, "[" + String.join(",", java.util.stream.IntStream.range(0, 5).mapToObj(i -> job("j" + i, "ml", "")).toList()) + "]");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "./horizon submit '" + file + "' | true; exit ${PIPESTATUS[0]}").directory(Horizon.ROOT.toFile());
        pb.environment().put("HORIZON_URL", "http://127.0.0.1:" + server.getAddress().getPort());
        pb.environment().put("HORIZON_TOKEN", "tok");
        Process p = pb.start();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the pipeline did not end");
        assertEquals(0, p.exitValue(), err);
        assertEquals("", err, "nothing on stderr when the reader stops early");
        assertEquals(5, posted.size(), "every job is sent");
    }
}
