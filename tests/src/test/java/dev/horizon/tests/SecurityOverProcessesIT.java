package dev.horizon.tests;

import static dev.horizon.tests.Horizon.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.Command;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.GpuTelemetry;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.TelemetryReport;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Security and tenancy over the packaged processes, on one control plane serving REST and the agents' gRPC over TLS
 * (certificates made with keytool at test time): agents given the CA enroll over TLS with one enrollment token and each
 * acts only for its own node; plaintext and another CA are refused; a revoked credential or token is refused on its next
 * call, open streams included; a team sees another team's work only as the plan shows it; the management endpoints are
 * not on the API port; one node's credential cannot hold, fail or drain another node's GPUs; a node reusing another's GPU
 * uuid is refused; a retried enrollment gets the same credential; a node an approval-requiring token enrolled gets no work
 * until an admin approves it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecurityOverProcessesIT {
    private static final String ADMIN = "security-it-admin";

    private Path dir;
    private TestCertificates certs;
    private int port;
    private Horizon.Rest admin;
    private String enrollment;
    private final List<Process> processes = new ArrayList<>();
    private final Map<String, Integer> agentPorts = new HashMap<>();
    private final Map<String, Process> agents = new HashMap<>();

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("horizon-security");
        certs = TestCertificates.make(dir, "horizon");
        port = Horizon.freePort();
        processes.add(Horizon.controlPlane(dir, port, ADMIN, "-Dhorizon.tls.cert=" + certs.cert(), "-Dhorizon.tls.key=" + certs.key()));
        admin = new Horizon.Rest(port, ADMIN, certs.trustingCa());
        await("the TLS control plane's readiness", 90, dir, admin::ready, Boolean::booleanValue);
        enrollment = admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\",\"label\":\"security-it\"}", 201).path("token").asText();
        startAgent("node-a", enrollment);
        startAgent("node-b", enrollment);
        for (String n : new String[] {"node-a", "node-b"}) {
            await(n + " enrolling over TLS with 8 GPUs", 90, dir, () -> admin.json("GET", "/api/v1/nodes/" + n, null, 200),
                    j -> j.path("gpus").size() == 8 && "agent".equals(j.path("source").asText()));
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (Process p : processes) p.destroyForcibly().waitFor();
    }

    @Test
    @Order(1)
    void plaintextOrAnotherCaIsRefusedAndManagementIsOffTheApiPort() throws Exception {
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
        assertThrows(IOException.class, () -> plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/nodes")).build(),
                HttpResponse.BodyHandlers.ofString()), "no plaintext on the API port");
        TestCertificates other = TestCertificates.make(dir, "other");
        HttpClient wrongCa = HttpClient.newBuilder().sslContext(other.trustingCa()).connectTimeout(Duration.ofSeconds(30)).build();
        assertThrows(javax.net.ssl.SSLHandshakeException.class, () -> wrongCa.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port
                + "/api/v1/nodes")).build(), HttpResponse.BodyHandlers.ofString()));
        try (AgentWire wrong = AgentWire.tls(port, other.ca()); AgentWire plaintext = AgentWire.plaintext(port)) {
            assertEquals(Status.Code.UNAVAILABLE, AgentWire.code(() -> wrong.as(enrollment).register(AgentWire.host("mallory", 1))),
                    "gRPC with a CA that did not sign the certificate");
            assertEquals(Status.Code.UNAVAILABLE, AgentWire.code(() -> plaintext.as(enrollment).register(AgentWire.host("mallory", 1))),
                    "gRPC in plaintext");
        }
        for (String path : new String[] {"/q/metrics", "/q/health/ready", "/q/openapi"}) {
            assertEquals(404, admin.call("GET", path, null).statusCode(), path + " on the API port");
        }
        assertTrue(admin.metrics().contains("horizon_utilization"), "metrics on the management port");
    }

    @Test
    @Order(2)
    void revokedTokensAreRefusedAndTeamsSeeOnlyThePlanOfOthers() throws Exception {
        admin.json("POST", "/api/v1/teams", "{\"name\":\"team-a\",\"share\":0.5}", 201);
        admin.json("POST", "/api/v1/teams", "{\"name\":\"team-b\",\"share\":0.5}", 201);
        Horizon.Rest teamA = admin.as(admin.json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"team-a\"}", 201).path("token").asText());
        JsonNode token = admin.json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"team-b\",\"expiresInSeconds\":3600}", 201);
        Horizon.Rest teamB = admin.as(token.path("token").asText());

        // team A's job runs; team B cannot read its spec, but the plan shows its GPUs busy
        String job = teamA.json("POST", "/api/v1/jobs", "{\"name\":\"secret-sauce\",\"team\":\"team-a\",\"class\":\"TRAINING\",\"perReplica\":"
                + "{\"gpus\":4},\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"a\",\"name\":\"secret-sauce\"}}", 201).path("id").asText();
        await("team A's job running", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + job, null, 200), j -> "RUNNING".equals(j.path("state").asText()));
        assertEquals(403, teamB.call("GET", "/api/v1/jobs/" + job, null).statusCode(), "the spec of another team's job");
        assertEquals(403, teamB.call("GET", "/api/v1/jobs/" + job + "/explanation", null).statusCode());
        String list = teamB.call("GET", "/api/v1/jobs", null).body();
        assertTrue(list.contains(job) && !list.contains("secret-sauce"), "listed without name or source: " + list);
        JsonNode plan = await("a plan with the job", 30, dir, () -> teamB.json("GET", "/api/v1/plan", null, 200), p -> p.path("busyGpus").asInt() == 4);
        assertFalse(plan.toString().contains("secret-sauce"), "the plan names nothing of another team's: " + plan);
        assertEquals("team-a", plan.path("running").path(0).path("team").asText());
        assertEquals("secret-sauce", teamA.json("GET", "/api/v1/jobs/" + job, null, 200).path("name").asText(), "its own team reads it in full");

        // listed for admins without the secret; revoked: refused on the next request
        JsonNode listed = admin.json("GET", "/api/v1/tokens/" + token.path("id").asText(), null, 200);
        assertTrue(listed.has("expiresAt") && !listed.has("token"), "listing shows expiry, never the secret: " + listed);
        teamB.json("GET", "/api/v1/jobs", null, 200);
        admin.json("DELETE", "/api/v1/tokens/" + token.path("id").asText(), null, 200);
        HttpResponse<String> revoked = teamB.call("GET", "/api/v1/jobs", null);
        assertEquals(401, revoked.statusCode(), revoked.body());
        assertTrue(revoked.body().contains("was revoked at"), revoked.body());
        admin.json("DELETE", "/api/v1/jobs/" + job, null, 200);
    }

    @Test
    @Order(3)
    void anAgentActsOnlyForItsOwnNodeAndIsCutOffOnceItsCredentialIsRevoked() throws Exception {
        admin.json("POST", "/api/v1/teams", "{\"name\":\"alpha\",\"share\":1.0}", 201);
        String a = Horizon.nodeCredential(dir, "node-a");
        Map<String, String> jobs = wholeNodeJobs();
        String onA = jobs.get("node-a");
        String onB = jobs.get("node-b");

        String id;
        try (AgentWire wire = AgentWire.tls(port, certs.ca())) {
            // node A's credential cannot register as node B (nor shrink it), nor report for a job or command on node B
            assertEquals(Status.Code.PERMISSION_DENIED, AgentWire.code(() -> wire.as(a).register(AgentWire.host("node-b", 1))),
                    "node-a's credential registering node-b");
            assertEquals(8, admin.json("GET", "/api/v1/nodes/node-b", null, 200).path("gpus").size(), "node-b keeps its 8 GPUs");
            Horizon.Rest asA = admin.as(a);
            JsonNode refused = asA.json("POST", "/api/v1/jobs/" + onB + "/outcome", "{\"state\":\"FAILED\"}", 403);
            assertTrue(refused.path("error").asText().contains("node node-a's"), refused.toString());
            assertEquals("RUNNING", admin.json("GET", "/api/v1/jobs/" + onB, null, 200).path("state").asText(), "node-b's job still runs");
            assertEquals(Status.Code.PERMISSION_DENIED, AgentWire.code(() -> wire.as(a).reportResult(CommandResult.newBuilder().setNodeId("node-b")
                    .setCommandId("any").setSuccess(true).build())));
            // the enrollment token cannot re-enroll a node that has a live credential
            StatusRuntimeException reenroll = assertThrows(StatusRuntimeException.class, () -> wire.as(enrollment).register(AgentWire.host("node-a", 1)));
            assertTrue(reenroll.getStatus().getDescription().contains("re-enrolling it needs an admin"), reenroll.getStatus().toString());
            // its own node's job it may finish
            assertEquals("SUCCEEDED", asA.json("POST", "/api/v1/jobs/" + onA + "/outcome", "{\"state\":\"SUCCEEDED\"}", 200).path("state").asText());

            // a stream opened with node A's credential, then the credential revoked: the stream ends and every call is refused
            CompletableFuture<Status> stream = new CompletableFuture<>();
            wire.async(a).commands(AgentHello.newBuilder().setNodeId("node-a").build(), AgentWire.<Command>ending(stream));
            id = StreamSupport.stream(admin.json("GET", "/api/v1/tokens", null, 200).spliterator(), false)
                    .filter(t -> "node-a".equals(t.path("node").asText()) && !t.has("revokedAt")).findFirst().orElseThrow().path("id").asText();
            admin.json("DELETE", "/api/v1/tokens/" + id, null, 200);
            assertEquals(Status.Code.UNAUTHENTICATED, stream.get(10, TimeUnit.SECONDS).getCode(), "the open command stream is cut");
            assertEquals(Status.Code.UNAUTHENTICATED, AgentWire.code(() -> wire.as(a).register(AgentWire.host("node-a", 8))));
            assertEquals(401, asA.call("GET", "/api/v1/nodes", null).statusCode(), "REST refuses it too");
        }
        // node-a's own agent, cut off too, falls back to the enrollment token, which may not re-enroll a node an admin cut off
        await("node-a's agent refused", 30, dir, () -> agentReadiness("node-a"), r -> r.contains("needs an admin"));

        // an admin re-enrolls node-a with a credential made for it; its agent, restarted with it, registers again
        String fresh = admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\",\"node\":\"node-a\"}", 201).path("token").asText();
        agents.get("node-a").destroy();
        agents.get("node-a").waitFor(30, TimeUnit.SECONDS);
        startAgent("node-a", fresh);
        await("node-a registered with its new credential", 90, dir, () -> agentReadiness("node-a"), r -> r.contains("\"UP\""));
        JsonNode audit = admin.json("GET", "/api/v1/audit", null, 200);
        assertTrue(audit.toString().contains("revoked agent token " + id + " for node node-a"), "the revocation is in the audit log: " + audit);
        assertTrue(audit.toString().contains("ENROLL"), "so are the enrollments: " + audit);
    }

    @Test
    @Order(4)
    void aNodeActsOnlyOnItsOwnGpusAndJoinsOnlyAsItsEnrollmentAllows() throws Exception {
        admin.json("POST", "/api/v1/teams", "{\"name\":\"beta\",\"share\":0.5}", 201);
        String b = Horizon.nodeCredential(dir, "node-b");
        List<String> gpusOfA = StreamSupport.stream(admin.json("GET", "/api/v1/nodes/node-a", null, 200).path("gpus").spliterator(), false)
                .map(g -> g.path("uuid").asText()).toList();
        String onA = admin.json("POST", "/api/v1/jobs", "{\"name\":\"beta-on-a\",\"team\":\"beta\",\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":8}}",
                201).path("id").asText();
        await("beta's job running on node-a", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + onA, null, 200),
                j -> "RUNNING".equals(j.path("state").asText()) && j.path("placement").asText().startsWith("node-a["));
        admin.json("POST", "/api/v1/inference-services", "{\"name\":\"b-chat\",\"team\":\"beta\",\"weightPerGpuHour\":20,\"swapCapGpus\":8,"
                + "\"servedBy\":[\"node-b\"]}", 201);

        // node B's credential can neither hold, fail nor drain anything on node A's GPUs
        Horizon.Rest asB = admin.as(b);
        JsonNode hold = asB.json("PUT", "/api/v1/inference-services/b-chat/held", "{\"gpuUuids\":" + Horizon.JSON.writeValueAsString(gpusOfA) + "}", 403);
        assertTrue(hold.path("error").asText().contains("gpuUuids[0]: GPU '" + gpusOfA.get(0) + "' is on node node-a"), hold.toString());
        asB.json("POST", "/api/v1/jobs/" + onA + "/outcome", "{\"state\":\"FAILED\"}", 403);
        try (AgentWire wire = AgentWire.tls(port, certs.ca())) {
            Status drain = telemetry(wire, b, TelemetryReport.newBuilder().setNodeId("node-b").addEvents(HealthEvent.newBuilder()
                    .setGpuUuid(gpusOfA.get(3)).setKind(HealthEvent.Kind.GPU_LOST)).build());
            assertEquals(Status.Code.PERMISSION_DENIED, drain.getCode(), drain.toString());
            assertTrue(drain.getDescription().contains("events[0].gpu_uuid: GPU '" + gpusOfA.get(3) + "' is not a GPU node node-b registered"),
                    drain.getDescription());
            Status report = telemetry(wire, b, TelemetryReport.newBuilder().setNodeId("node-b").addGpus(GpuTelemetry.newBuilder()
                    .setUuid(gpusOfA.get(0)).setUtilizationPercent(0)).build());
            assertEquals(Status.Code.PERMISSION_DENIED, report.getCode(), report.toString());
            Thread.sleep(2_000);
            assertEquals("HEALTHY", admin.json("GET", "/api/v1/nodes/node-a", null, 200).path("health").asText(), "node-a is not drained");
            assertEquals("RUNNING", admin.json("GET", "/api/v1/jobs/" + onA, null, 200).path("state").asText(), "beta's job on node-a still runs");
            assertEquals(0, admin.json("GET", "/api/v1/inference-services/b-chat", null, 200).path("heldOn").size());

            // a node reusing another node's GPU uuid is refused, and a name that is no DNS-1123 subdomain
            Inventory copycat = AgentWire.host("copycat", 2).toBuilder().setGpus(1, AgentWire.host("copycat", 2).getGpus(1).toBuilder()
                    .setUuid(gpusOfA.get(5))).build();
            StatusRuntimeException reused = assertThrows(StatusRuntimeException.class, () -> wire.as(enrollment).register(copycat));
            assertEquals(Status.Code.ALREADY_EXISTS, reused.getStatus().getCode());
            assertTrue(reused.getStatus().getDescription().contains("GPU " + gpusOfA.get(5) + " is registered on node node-a"), reused.getStatus().toString());
            assertEquals(Status.Code.INVALID_ARGUMENT, AgentWire.code(() -> wire.as(enrollment).register(AgentWire.host("node-1[0-1]+zz", 1))));
            assertEquals(404, admin.call("GET", "/api/v1/nodes/copycat", null).statusCode());

            // a retried Register (its first reply lost) gets the same credential back
            String once = admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\",\"maxUses\":1,\"requireApproval\":true,\"label\":\"one host\"}", 201)
                    .path("token").asText();
            Inventory mallory = AgentWire.host("mallory", 8).toBuilder().setEnrollmentNonce("retry-nonce-of-mallory-0123456789").build();
            String credential = wire.as(once).register(mallory).getNodeCredential();
            assertEquals(credential, wire.as(once).register(mallory).getNodeCredential(), "the retry's credential");
            assertEquals(Status.Code.PERMISSION_DENIED, AgentWire.code(() -> wire.as(once).register(AgentWire.host("mallory-2", 1))),
                    "a single-use enrollment token enrolls no second node");

            // enrolled with a token that requires approval, 8 made-up H100s get no work until an admin approves them
            assertTrue(admin.json("GET", "/api/v1/nodes/mallory", null, 200).path("pendingApproval").asBoolean());
            // submitted through the CLI, over HTTPS verified against the CA it is given
            Path job = Files.writeString(dir.resolve("beta-waits.json"), "{\"name\":\"beta-waits\",\"team\":\"beta\","
                    + "\"class\":\"TRAINING\",\"perReplica\":{\"gpus\":8}}");
            java.util.regex.Matcher submitted = java.util.regex.Pattern.compile("submitted job ([0-9a-f-]{36}) \\(beta-waits\\) for team beta: PENDING")
                    .matcher(cli("submit", job.toString()));
            assertTrue(submitted.find(), "submitted over HTTPS");
            String waits = submitted.group(1);
            Thread.sleep(3_000);
            JsonNode waiting = admin.json("GET", "/api/v1/jobs/" + waits, null, 200);
            assertEquals("PENDING", waiting.path("state").asText(), "never placed on the unapproved node: " + waiting);
            assertFalse(admin.json("GET", "/api/v1/plan", null, 200).toString().contains("mallory["), "mallory is in no plan");
            String said = cli("node", "approve", "mallory");
            assertTrue(said.contains("approved node mallory"), said);
            await("the job placed on mallory once approved", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + waits, null, 200),
                    j -> j.path("placement").asText().startsWith("mallory["));

            // an admin drains it for maintenance and gives it work again, through the CLI
            String drained = cli("node", "drain", "mallory", "--reason", "burn-in after approval");
            assertTrue(drained.contains("drained node mallory"), drained);
            assertEquals("burn-in after approval", admin.json("GET", "/api/v1/nodes/mallory", null, 200).path("drainReason").asText());
            String status = cli("status");
            assertTrue(status.contains("drained (no new work until ./horizon node undrain mallory): mallory: burn-in after approval"), status);
            assertTrue(cli("node", "undrain", "mallory").contains("undrained node mallory"));
            assertTrue(admin.json("GET", "/api/v1/nodes/mallory", null, 200).path("drainReason").isNull());
            admin.json("DELETE", "/api/v1/jobs/" + waits, null, 200);
        }
        admin.json("DELETE", "/api/v1/jobs/" + onA, null, 200);
    }

    /** What ./horizon ARGS printed against this control plane as its admin; fails unless it exits 0. */
    private String cli(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Horizon.ROOT.resolve("horizon").toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("--url", "https://127.0.0.1:" + port, "--token", ADMIN, "--ca", certs.ca().toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", args) + ": " + said);
        return said;
    }

    /** What a telemetry stream with one report ends with. */
    private static Status telemetry(AgentWire wire, String token, TelemetryReport report) throws Exception {
        CompletableFuture<Status> ended = new CompletableFuture<>();
        io.grpc.stub.StreamObserver<TelemetryReport> stream = wire.async(token).telemetry(AgentWire.<dev.horizon.agent.v1.TelemetryAck>ending(ended));
        stream.onNext(report);
        stream.onCompleted();
        return ended.get(10, TimeUnit.SECONDS);
    }

    /** Two 8-GPU jobs, one on each node once both run: node name to job id. */
    private Map<String, String> wholeNodeJobs() throws Exception {
        Map<String, String> byNode = new HashMap<>();
        for (int i = 0; i < 2; i++) {
            String id = admin.json("POST", "/api/v1/jobs", "{\"name\":\"whole-" + i + "\",\"team\":\"alpha\",\"class\":\"TRAINING\","
                    + "\"perReplica\":{\"gpus\":8}}", 201).path("id").asText();
            JsonNode job = await("job " + id + " running", 30, dir, () -> admin.json("GET", "/api/v1/jobs/" + id, null, 200),
                    j -> "RUNNING".equals(j.path("state").asText()));
            String placement = job.path("placement").asText();
            byNode.put(placement.substring(0, placement.indexOf('[')), id);
        }
        return byNode;
    }

    /** An agent for node, given the CA, on the same health port and state directory each time it starts. */
    private void startAgent(String node, String token) throws Exception {
        if (!agentPorts.containsKey(node)) agentPorts.put(node, Horizon.freePort());
        Process p = Horizon.agent(dir, node, agentPorts.get(node), port, token, "-Dhorizon.agent.control-plane-ca=" + certs.ca());
        processes.add(p);
        agents.put(node, p);
    }

    /** What the agent's readiness check answers (its body says why it is not ready). */
    private String agentReadiness(String node) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agentPorts.get(node)
                + "/q/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
        return r.body();
    }
}
