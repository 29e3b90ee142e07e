package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Break-glass over processes, on the packaged control plane and its H2 file: the admins cannot revoke every admin token
 * but one through the API; an operator whose store holds no live admin token anyway (edited here while stopped, as a
 * store from before these rules, or admin tokens that all expired, could be) gets back in by restarting with a new
 * bootstrap admin value, or with {@code ./horizon token create --store DIR} on the stopped store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdminLockoutOverProcessesIT {
    private static final String FIRST = "lockout-it-first-admin";
    private static final String BREAK_GLASS = "lockout-it-break-glass";

    private Path dir;
    private int port;
    private Process controlPlane;
    private String second;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("horizon-lockout");
        port = Horizon.freePort();
        startControlPlane(FIRST);
    }

    @AfterAll
    void stop() throws Exception {
        if (controlPlane != null) controlPlane.destroyForcibly().waitFor();
    }

    @Test
    @Order(1)
    void revokingEveryAdminButOneIsRefusedWhateverRevokesIt() throws Exception {
        Horizon.Rest first = new Horizon.Rest(port, FIRST);
        String firstId = first.json("GET", "/api/v1/tokens", null, 200).get(0).path("id").asText();
        String expiring = first.json("POST", "/api/v1/tokens", "{\"role\":\"admin\",\"label\":\"expiring\",\"expiresInSeconds\":600}", 201)
                .path("token").asText();
        refusedAsTheLast(new Horizon.Rest(port, expiring), firstId);
        refusedAsTheLast(first, firstId);

        JsonNode made = first.json("POST", "/api/v1/tokens", "{\"role\":\"admin\",\"label\":\"second\"}", 201);
        second = made.path("token").asText();
        Horizon.Rest secondAdmin = new Horizon.Rest(port, second);
        String secondId = made.path("id").asText();
        assertEquals(200, secondAdmin.call("DELETE", "/api/v1/tokens/" + firstId, null).statusCode(), "another never-expiring admin stays");
        refusedAsTheLast(secondAdmin, secondId);
        assertEquals(401, first.call("GET", "/api/v1/tokens", null).statusCode());
    }

    @Test
    @Order(2)
    void withNoLiveAdminARestartWithANewBootstrapValueLetsTheOperatorIn() throws Exception {
        stopControlPlane();
        assertEquals(2, expireEveryAdmin(), "the expiring admin and the second one ran out");
        startControlPlane(BREAK_GLASS);

        new Horizon.Rest(port, BREAK_GLASS).json("GET", "/api/v1/tokens", null, 200);
        HttpResponse<String> expired = new Horizon.Rest(port, second).call("GET", "/api/v1/tokens", null);
        assertEquals(401, expired.statusCode());
        assertTrue(expired.body().contains("expired at"), expired.body());
        assertTrue(log().contains("break-glass: no admin token was live, so HORIZON_BOOTSTRAP_ADMIN_TOKEN became admin token"), "the log says so");
    }

    @Test
    @Order(3)
    void theOfflineTokenCommandWorksOnTheStoppedStoreOnly() throws Exception {
        Run whileRunning = horizon("token", "create", "--store", dir.toString(), "--role", "admin");
        assertEquals(2, whileRunning.exit(), whileRunning.err());
        assertTrue(whileRunning.err().contains("is open by a running control plane; stop it first"), whileRunning.err());

        stopControlPlane();
        assertEquals(1, expireEveryAdmin(), "the break-glass admin ran out too");
        Run offline = horizon("token", "create", "--store", dir.toString(), "--role", "admin", "--label", "locked out");
        assertEquals(0, offline.exit(), offline.err());
        String token = offline.out().trim();
        assertTrue(token.startsWith("hz_") && !token.contains("\n"), "the token alone on stdout: " + offline.out());

        Matcher made = Pattern.compile("created admin token (\\w+) in the store").matcher(offline.err());
        assertTrue(made.find(), offline.err());

        startControlPlane(BREAK_GLASS);
        Horizon.Rest operator = new Horizon.Rest(port, token);
        JsonNode audit = operator.json("GET", "/api/v1/audit?limit=20", null, 200);
        assertTrue(StreamSupport.stream(audit.spliterator(), false).anyMatch(e -> e.path("actor").asText().equals("offline")
                && e.path("target").asText().equals("/api/v1/tokens/" + made.group(1))), "the offline token's making is audited: " + audit);
        assertTrue(log().contains("HORIZON_BOOTSTRAP_ADMIN_TOKEN is ignored: the store holds 1 live admin token(s) (" + made.group(1) + ")"),
                "the log says why the bootstrap value is not needed");
    }

    private static void refusedAsTheLast(Horizon.Rest admin, String id) throws Exception {
        HttpResponse<String> r = admin.call("DELETE", "/api/v1/tokens/" + id, null);
        assertEquals(409, r.statusCode(), r.body());
        assertTrue(r.body().contains("last live admin token"), r.body());
    }

    private void startControlPlane(String bootstrapAdmin) throws Exception {
        controlPlane = Horizon.controlPlane(dir, port, bootstrapAdmin);
        Horizon.Rest rest = new Horizon.Rest(port, bootstrapAdmin);
        await("the control plane's readiness", 90, dir, rest::ready, Boolean::booleanValue);
    }

    /** SIGTERM, as an operator stops it: the H2 file is closed and unlocked. */
    private void stopControlPlane() throws Exception {
        controlPlane.destroy();
        assertTrue(controlPlane.waitFor(30, TimeUnit.SECONDS), "the control plane stops on SIGTERM");
    }

    /** Every live admin token runs out, edited in the stopped control plane's H2 file; returns how many. */
    private int expireEveryAdmin() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("horizon").toAbsolutePath(), "horizon", "")) {
            return c.createStatement().executeUpdate("UPDATE tokens SET expires_at = 1 WHERE role = 'ADMIN' AND revoked_at IS NULL"
                    + " AND (expires_at IS NULL OR expires_at > 1)");
        }
    }

    /** The latest control plane's log. */
    private String log() throws Exception {
        try (Stream<Path> logs = Files.list(dir)) {
            Path latest = logs.filter(p -> p.getFileName().toString().startsWith("control-plane-" + port + "-"))
                    .max(Comparator.comparing(p -> p.toFile().lastModified())).orElseThrow();
            return Files.readString(latest);
        }
    }

    private record Run(int exit, String out, String err) {
    }

    private Run horizon(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Horizon.ROOT.resolve("horizon").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(Horizon.ROOT.toFile()).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "./horizon " + String.join(" ", args) + " did not end");
        return new Run(p.exitValue(), out, err);
    }
}
