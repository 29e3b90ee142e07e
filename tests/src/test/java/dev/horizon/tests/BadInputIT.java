package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Every malformed or hostile input in {@code bad-inputs/index.tsv}, POSTed (or PUT, GET) to one running control plane
 * process: each must be refused with its 4xx and an error body that says what is wrong, and afterwards the same process
 * still takes a good job.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BadInputIT {
    private static final String ADMIN = "bad-input-admin-token";
    private static final String GOOD_JOB = "{\"name\":\"ok\",\"team\":\"alpha\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":1}}";
    private static final int TEN_MIB = 10 * 1024 * 1024;

    private record Case(String file, int status, String token, String method, String path, String fragment) {
    }

    private Path dir;
    private Process service;
    private int port;
    private final Map<String, String> tokens = new java.util.HashMap<>();
    // HTTP/1.1: the 10 MiB body must reach the size limit, not an h2c upgrade the server turns away
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("horizon-bad-input");
        port = Horizon.freePort();
        // declared nodes give the job checks a cluster size and the command checks a node with GPUs
        service = Horizon.controlPlane(dir, port, ADMIN, "-Dhorizon.nodes=8xH100-80GB,8xH100-80GB");
        Horizon.Rest admin = new Horizon.Rest(port, ADMIN);
        Horizon.await("the control plane's readiness", 90, dir, admin::ready, Boolean::booleanValue);
        admin.json("POST", "/api/v1/teams", "{\"name\":\"alpha\",\"share\":0.5}", 201);
        tokens.put("admin", ADMIN);
        tokens.put("submitter", admin.json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"alpha\"}", 201).get("token").asText());
        tokens.put("agent", admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\"}", 201).get("token").asText());
    }

    @AfterAll
    void stop() throws Exception {
        if (service != null) service.destroyForcibly().waitFor();
    }

    @TestFactory
    @Order(1)
    Stream<DynamicTest> eachBadInputIsRefusedWithItsStatusAndAClearMessage() throws IOException {
        List<Case> cases = corpus();
        assertTrue(cases.size() >= 50, "the corpus holds at least 50 inputs, not " + cases.size());
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.file() + " -> " + c.status(), () -> check(c)));
    }

    @Test
    @Order(2)
    void theServiceStillServesAGoodRequestAfterwards() throws Exception {
        Horizon.Rest submitter = new Horizon.Rest(port, tokens.get("submitter"));
        assertTrue(submitter.ready(), "still ready");
        JsonNode job = submitter.json("POST", "/api/v1/jobs", GOOD_JOB, 201);
        assertEquals("PENDING", job.get("state").asText());
        assertEquals("ok", submitter.json("GET", "/api/v1/jobs/" + job.get("id").asText(), null, 200).get("name").asText(), "and reads it back");
    }

    private void check(Case c) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + c.path())).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").method(c.method(), body(c.file()));
        if (c.token().startsWith("raw:")) b.header("Authorization", c.token().substring(4));
        else if (!c.token().equals("none")) b.header("Authorization", "Bearer " + tokens.get(c.token()));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(c.status(), r.statusCode(), c.file() + ": " + r.body());
        JsonNode error = Horizon.JSON.readTree(r.body());
        assertEquals(c.status(), error.path("status").asInt(), "the body repeats the status: " + r.body());
        assertFalse(error.path("error").asText().isBlank(), "the body says what is wrong: " + r.body());
        assertTrue(r.body().toLowerCase(Locale.ROOT).contains(c.fragment().toLowerCase(Locale.ROOT)),
                "the message names '" + c.fragment() + "': " + r.body());
    }

    private static HttpRequest.BodyPublisher body(String file) throws IOException {
        if (file.startsWith("-")) return HttpRequest.BodyPublishers.noBody();
        if (file.equals("generated:10MiB-name")) {
            return HttpRequest.BodyPublishers.ofString(GOOD_JOB.replace("\"ok\"", "\"" + "a".repeat(TEN_MIB) + "\""));
        }
        try (InputStream in = BadInputIT.class.getResourceAsStream("/bad-inputs/" + file)) {
            if (in == null) throw new IOException("bad-inputs/" + file + " is in index.tsv but not in the corpus");
            return HttpRequest.BodyPublishers.ofByteArray(in.readAllBytes());
        }
    }

    private static List<Case> corpus() throws IOException {
        List<Case> cases = new ArrayList<>();
        try (InputStream in = BadInputIT.class.getResourceAsStream("/bad-inputs/index.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) continue;
                String[] f = line.split("\t", -1);
                cases.add(new Case(f[0], Integer.parseInt(f[1]), f[2], f[3], f[4], f[5]));
            }
        }
        return cases;
    }
}
