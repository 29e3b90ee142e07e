package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.agent.v1.AgentHello;
import dev.horizon.agent.v1.CommandResult;
import dev.horizon.agent.v1.GpuInventory;
import dev.horizon.agent.v1.GpuProcess;
import dev.horizon.agent.v1.GpuTelemetry;
import dev.horizon.agent.v1.HealthEvent;
import dev.horizon.agent.v1.Inventory;
import dev.horizon.agent.v1.MemoryViolation;
import dev.horizon.agent.v1.MigDevice;
import dev.horizon.agent.v1.TelemetryAck;
import dev.horizon.agent.v1.TelemetryReport;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;
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
 * The hostile-input corpus ({@link HostileInputCorpus}, REST, and the agent protocol's messages here) sent to one running
 * control plane process: every request gets its 4xx (or gRPC refusal) naming the field, never a 5xx; then the fuzz half,
 * valid bodies of every endpoint changed in one random way ({@link BodyMutations}) and valid registrations with random bytes
 * flipped, none of which may cost a 5xx or a gRPC server failure; the process keeps serving; and what it accepted before
 * all this is still there, unchanged. The fuzz cases come from a seeded Random (printed; replay with
 * -Dhorizon.fuzz.seed=N). The subclasses run it on the embedded H2
 * file and on PostgreSQL, which refuses what H2 stores (a NUL character) and so shows checks the H2 run would miss.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class HostileInput {
    static final String ADMIN = "hostile-input-admin";
    static final String NODE = "hostile-node";
    /** The gRPC codes that mean the server failed rather than refused: the agent protocol's 5xx. */
    private static final int MUTATED_BODIES = 200;
    private static final int MUTATED_REGISTRATIONS = 100;
    private static final long SEED = Long.getLong("horizon.fuzz.seed", System.nanoTime());
    private static final Set<Status.Code> SERVER_FAILURES = Set.of(Status.Code.UNKNOWN, Status.Code.INTERNAL, Status.Code.UNAVAILABLE,
            Status.Code.DATA_LOSS, Status.Code.UNIMPLEMENTED);

    private record GrpcCase(String what, Supplier<Status> call, Status.Code expected, String fragment) {
        @Override
        public String toString() {
            return what + " -> " + expected;
        }
    }

    private Path dir;
    private Process service;
    private int port;
    private AgentWire wire;
    private final Map<String, String> tokens = new HashMap<>();
    /** The bootstrap admin token's id: stored hashes are keyed, so only the store can say it. */
    private String adminId;
    /** What was accepted before the corpus: path to its JSON then. */
    private final Map<String, JsonNode> kept = new LinkedHashMap<>();
    private List<BodyMutations.Template> templates;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    /** The store's environment (HORIZON_DB_URL ...) and JVM options; an empty map for the embedded H2 file. */
    abstract Map<String, String> store(Path dir) throws Exception;

    abstract String[] storeOptions();

    void dropStore() throws Exception {
    }

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("horizon-hostile-input");
        port = Horizon.freePort();
        Map<String, String> env = store(dir);
        List<String> options = new ArrayList<>(List.of("-Dhorizon.nodes=8xH100-80GB,8xH100-80GB"));
        options.addAll(List.of(storeOptions()));
        service = Horizon.controlPlane(dir, port, ADMIN, env, options.toArray(String[]::new));
        Horizon.Rest admin = new Horizon.Rest(port, ADMIN);
        Horizon.await("the control plane's readiness", 90, dir, admin::ready, Boolean::booleanValue);
        tokens.put("admin", ADMIN);
        adminId = admin.json("GET", "/api/v1/tokens", null, 200).get(0).get("id").asText();
        for (String team : new String[] {"alpha", "beta"}) admin.json("POST", "/api/v1/teams", "{\"name\":\"" + team + "\",\"share\":0.5}", 201);
        tokens.put("submitter", admin.json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"alpha\"}", 201).get("token").asText());
        tokens.put("agent", admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\"}", 201).get("token").asText());
        tokens.put("node", admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\",\"node\":\"" + NODE + "\"}", 201).get("token").asText());
        wire = AgentWire.plaintext(port);
        wire.as(tokens.get("node")).register(AgentWire.host(NODE, 8));
        keep();
        HttpResponse<String> keyed = send("POST", HostileInputCorpus.JOB, "submitter", HostileInputCorpus.job("name", "\"ok\""),
                "Idempotency-Key: " + HostileInputCorpus.REUSED_KEY);
        assertEquals(201, keyed.statusCode(), "the first job under the key the corpus reuses: " + keyed.body());
        admin.json("POST", "/api/v1/inference-services", "{\"name\":\"fz-chat\",\"team\":\"alpha\",\"weightPerGpuHour\":5,\"swapCapGpus\":1}", 201);
        admin.json("POST", "/api/v1/inference-services", "{\"name\":\"fz-served\",\"team\":\"alpha\",\"weightPerGpuHour\":5,\"swapCapGpus\":1,"
                + "\"servedBy\":[\"" + NODE + "\"]}", 201);
        String job = admin.json("POST", "/api/v1/jobs", "{\"name\":\"fz\",\"team\":\"alpha\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}}", 201)
                .get("id").asText();
        templates = BodyMutations.templates(job, "fz-chat");
        System.out.println(getClass().getSimpleName() + " fuzz seed " + SEED + " (replay with -Dhorizon.fuzz.seed=" + SEED + ")");
    }

    /** Accepted before the corpus: jobs with every optional field, a service, a MIG policy; compared after it. */
    private void keep() throws Exception {
        Horizon.Rest submitter = new Horizon.Rest(port, tokens.get("submitter"));
        Horizon.Rest admin = new Horizon.Rest(port, ADMIN);
        for (int i = 0; i < 3; i++) {
            JsonNode job = submitter.json("POST", "/api/v1/jobs", "{\"name\":\"kept-" + i + "-训练\",\"team\":\"alpha\",\"class\":\"TRAINING\",\"priority\":" + i
                    + ",\"replicas\":2,\"perReplica\":{\"gpus\":2},\"durationEstimateSeconds\":3600,\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"ml\","
                    + "\"name\":\"kept-" + i + "\"}}", 201);
            kept.put("/api/v1/jobs/" + job.get("id").asText(), job.get("spec"));
        }
        kept.put("/api/v1/inference-services/kept", admin.json("POST", "/api/v1/inference-services",
                "{\"name\":\"kept\",\"team\":\"alpha\",\"weightPerGpuHour\":5,\"swapCapGpus\":1,\"servedBy\":[\"serving-node\"]}", 201).get("servedBy"));
        kept.put("/api/v1/mig-policies/kept-pool", admin.json("PUT", "/api/v1/mig-policies/kept-pool", "{\"partitionableModels\":[\"H100-80GB\"],"
                + "\"allowedProfiles\":[\"3g.40gb\"],\"layout\":\"FIXED\",\"drainTimeSeconds\":60,\"maxConcurrentReconfigurations\":1}", 201));
    }

    @AfterAll
    void stop() throws Exception {
        if (wire != null) wire.close();
        if (service != null) service.destroyForcibly().waitFor();
        dropStore();
    }

    @TestFactory
    @Order(1)
    Stream<DynamicTest> everyHostileRestRequestIsRefusedWithItsStatusNamingTheField() {
        List<HostileInputCorpus.Case> cases = HostileInputCorpus.all(adminId);
        assertTrue(cases.size() >= 150, "the REST corpus holds at least 150 requests, not " + cases.size());
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> check(c)));
    }

    /** token: a key of tokens, "none", or "raw:" and the Authorization header's value. */
    private HttpResponse<String> send(String method, String path, String token, String body, String header) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token.startsWith("raw:")) b.header("Authorization", token.substring(4));
        else if (!token.equals("none")) b.header("Authorization", "Bearer " + tokens.get(token));
        if (header != null) b.header(header.substring(0, header.indexOf(':')), header.substring(header.indexOf(':') + 1).strip());
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private void check(HostileInputCorpus.Case c) throws Exception {
        HttpResponse<String> r = send(c.method(), c.path(), c.token(), c.body(), c.header());
        assertTrue(r.statusCode() < 500, c.what() + ": a " + r.statusCode() + " " + r.body());
        assertEquals(c.status(), r.statusCode(), c.what() + ": " + r.body());
        JsonNode error = Horizon.JSON.readTree(r.body());
        assertFalse(error.path("error").asText().isBlank(), "the body says what is wrong: " + r.body());
        assertTrue(r.body().toLowerCase(Locale.ROOT).contains(c.fragment().toLowerCase(Locale.ROOT)), c.what() + ": the answer names '" + c.fragment()
                + "': " + r.body());
        assertTrue(r.body().length() < 4000, c.what() + ": the answer does not repeat the input at length (" + r.body().length() + " characters)");
    }

    @TestFactory
    @Order(2)
    Stream<DynamicTest> everyHostileAgentMessageIsRefusedNamingTheField() {
        List<GrpcCase> cases = grpcCases();
        assertTrue(cases.size() >= 30, "the agent corpus holds at least 30 messages, not " + cases.size());
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
            Status s = c.call().get();
            assertFalse(SERVER_FAILURES.contains(s.getCode()), c.what() + ": the server failed: " + s);
            assertEquals(c.expected(), s.getCode(), c.what() + ": " + s);
            if (!c.fragment().isEmpty()) {
                assertTrue(String.valueOf(s.getDescription()).contains(c.fragment()), c.what() + ": the refusal names '" + c.fragment() + "': " + s);
                assertTrue(s.getDescription().length() < 4000, c.what() + ": the refusal stays short");
            }
        }));
    }

    private List<GrpcCase> grpcCases() {
        String enroll = tokens.get("agent");
        String node = tokens.get("node");
        List<GrpcCase> cases = new ArrayList<>();
        Inventory good = AgentWire.host("new-host", 2);
        GpuInventory gpu = good.getGpus(0);
        Map<String, Inventory> inventories = new LinkedHashMap<>();
        inventories.put("node_name must be a DNS-1123 subdomain", good.toBuilder().setNodeName("n".repeat(254)).build());
        inventories.put("(got 'new\\u0000host')", good.toBuilder().setNodeName("new\u0000host").build());
        // '+', '[' and ']' delimit stored placements, '/' and '.' paths, '%' and '_' SQL patterns
        for (String name : new String[] {"../../etc", "%_", "node-1[0-1]+zz", "Upper", "a\u200Bb"}) {
            inventories.put("node_name must be a DNS-1123 subdomain, as Kubernetes names nodes: lower-case letters, digits, '-' and '.', starting and"
                    + " ending with a letter or digit, at most 253 characters (got " + quote(name) + ")", good.toBuilder().setNodeName(name).build());
        }
        inventories.put("enrollment_nonce: 22 to 128", good.toBuilder().setEnrollmentNonce("guessable").build());
        inventories.put("node_name", good.toBuilder().setNodeName("").build());
        inventories.put("nvlink_domain", good.toBuilder().setNvlinkDomain("d".repeat(300)).build());
        inventories.put("gpus: a node has 1 to 64 GPUs (got 0)", good.toBuilder().clearGpus().build());
        inventories.put("gpus: a node has 1 to 64 GPUs (got 65)", AgentWire.host("new-host", 65).toBuilder().build());
        inventories.put("gpus[1].uuid: required and unique", good.toBuilder().setGpus(1, good.getGpus(1).toBuilder().setUuid(gpu.getUuid())).build());
        inventories.put("gpus[1].index", good.toBuilder().setGpus(1, good.getGpus(1).toBuilder().setIndex(0)).build());
        inventories.put("gpus[0].index", good.toBuilder().setGpus(0, gpu.toBuilder().setIndex(-1)).build());
        inventories.put("gpus[0].memory_mib: required", good.toBuilder().setGpus(0, gpu.toBuilder().setMemoryMib(0)).build());
        inventories.put("gpus[0].memory_mib", good.toBuilder().setGpus(0, gpu.toBuilder().setMemoryMib(-1L)).build());
        inventories.put("gpus[0].model", good.toBuilder().setGpus(0, gpu.toBuilder().setModel("m".repeat(100))).build());
        inventories.put("gpus[0].uuid holds a control character", good.toBuilder().setGpus(0, gpu.toBuilder().setUuid("GPU-\u001b")).build());
        inventories.put("gpus[0].uuid is", good.toBuilder().setGpus(0, gpu.toBuilder().setUuid("u".repeat(10_000))).build());
        GpuInventory.Builder eight = gpu.toBuilder();
        for (int i = 0; i < 8; i++) eight.addMigDevices(MigDevice.newBuilder().setUuid("MIG-" + i).setProfile("1g.10gb"));
        inventories.put("gpus[0].mig_devices: 8 devices", good.toBuilder().setGpus(0, eight).build());
        inventories.put("gpus[0].mig_devices[0].uuid", good.toBuilder().setGpus(0, gpu.toBuilder().addMigDevices(MigDevice.newBuilder()
                .setUuid("MIG-\u0000").setProfile("1g.10gb"))).build());
        inventories.forEach((field, inv) -> cases.add(new GrpcCase("Register " + field, () -> status(() -> wire.as(enroll).register(inv)),
                Status.Code.INVALID_ARGUMENT, field)));

        cases.add(new GrpcCase("Register of a GPU uuid another node registered", () -> status(() -> wire.as(enroll).register(good.toBuilder()
                .setGpus(1, good.getGpus(1).toBuilder().setUuid("GPU-" + NODE + "-3")).build())), Status.Code.ALREADY_EXISTS,
                "gpus[1].uuid: GPU GPU-" + NODE + "-3 is registered on node " + NODE));
        cases.add(new GrpcCase("Register with no token", () -> status(() -> wire.as(null).register(good)), Status.Code.UNAUTHENTICATED, "missing bearer"));
        cases.add(new GrpcCase("Register with an unknown token", () -> status(() -> wire.as("x".repeat(4000)).register(good)), Status.Code.UNAUTHENTICATED,
                "unknown token"));
        cases.add(new GrpcCase("Register with an admin token", () -> status(() -> wire.as(ADMIN).register(good)), Status.Code.PERMISSION_DENIED,
                "agent token"));
        cases.add(new GrpcCase("Register of another node with a node credential", () -> status(() -> wire.as(node).register(good)),
                Status.Code.PERMISSION_DENIED, "cannot act for node"));
        cases.add(new GrpcCase("Register of an enrolled node with the enrollment token", () -> status(() -> wire.as(enroll).register(AgentWire.host(NODE, 8))),
                Status.Code.PERMISSION_DENIED, "needs an admin"));
        cases.add(new GrpcCase("ReportResult with the enrollment token", () -> status(() -> wire.as(enroll).reportResult(result(NODE, "c", true, ""))),
                Status.Code.PERMISSION_DENIED, "enrollment token"));
        cases.add(new GrpcCase("ReportResult for another node", () -> status(() -> wire.as(node).reportResult(result("node-0", "c", true, ""))),
                Status.Code.PERMISSION_DENIED, "cannot act for node"));
        cases.add(new GrpcCase("ReportResult of an unknown command id of 10,000 characters", () -> status(() -> wire.as(node)
                .reportResult(result(NODE, "c".repeat(10_000), true, ""))), Status.Code.NOT_FOUND, "has no command"));
        cases.add(new GrpcCase("ReportResult failed without its error", () -> status(() -> wire.as(node).reportResult(result(NODE, "c", false, ""))),
                Status.Code.INVALID_ARGUMENT, "error"));
        cases.add(new GrpcCase("Commands for another node", () -> status(() -> wire.as(node).commands(AgentHello.newBuilder().setNodeId("node-1").build())
                .hasNext()), Status.Code.PERMISSION_DENIED, "cannot act for node"));
        cases.add(new GrpcCase("Commands with the enrollment token", () -> status(() -> wire.as(enroll).commands(AgentHello.newBuilder().setNodeId(NODE)
                .build()).hasNext()), Status.Code.PERMISSION_DENIED, "enrollment token"));
        TelemetryReport.Builder mine = TelemetryReport.newBuilder().setNodeId(NODE);
        cases.add(new GrpcCase("Telemetry for another node", () -> telemetry(node, mine.clone().setNodeId("node-0").build()), Status.Code.PERMISSION_DENIED,
                "cannot act for node"));
        TelemetryReport.Builder events = mine.clone();
        for (int i = 0; i < 300; i++) events.addEvents(HealthEvent.newBuilder().setGpuUuid("GPU-" + NODE + "-0").setKind(HealthEvent.Kind.XID).setXid(13));
        cases.add(new GrpcCase("Telemetry with 300 events", () -> telemetry(node, events.build()), Status.Code.INVALID_ARGUMENT, "events: 300"));
        cases.add(new GrpcCase("Telemetry with a violation on a GPU of no node", () -> telemetry(node, mine.clone().addViolations(MemoryViolation.newBuilder()
                .setGpuUuid("GPU-\u0000elsewhere").setAction(MemoryViolation.Action.REPORTED)).build()), Status.Code.PERMISSION_DENIED,
                "violations[0].gpu_uuid: GPU 'GPU-\\u0000elsewhere' is not a GPU node " + NODE + " registered"));
        cases.add(new GrpcCase("Telemetry with a fatal event on a GPU not on the node", () -> telemetry(node, mine.clone().addEvents(HealthEvent.newBuilder()
                .setGpuUuid("GPU-new-host-0").setKind(HealthEvent.Kind.GPU_LOST)).build()), Status.Code.PERMISSION_DENIED, "events[0].gpu_uuid"));
        cases.add(new GrpcCase("Telemetry reading a GPU not on the node", () -> telemetry(node, mine.clone().addGpus(GpuTelemetry.newBuilder()
                .setUuid("GPU-new-host-1").setUtilizationPercent(1)).build()), Status.Code.PERMISSION_DENIED, "gpus[0].uuid"));
        cases.add(new GrpcCase("Telemetry with a violation without its action", () -> telemetry(node, mine.clone().addViolations(MemoryViolation
                .newBuilder().setGpuUuid("GPU-" + NODE + "-0")).build()), Status.Code.INVALID_ARGUMENT, "action"));
        // what a host reports about its own processes is kept, cut and cleaned, not refused
        GpuTelemetry.Builder odd = GpuTelemetry.newBuilder().setUuid("GPU-" + NODE + "-1").setUtilizationPercent(Double.NaN);
        for (int i = 0; i < 100; i++) odd.addProcesses(GpuProcess.newBuilder().setPid(i).setUsedMemoryMib(i).setName("p\u0000" + "x".repeat(1000)));
        cases.add(new GrpcCase("Telemetry with 100 processes named with NUL and 1,000 characters", () -> telemetry(node, mine.clone().addGpus(odd).build()),
                Status.Code.OK, ""));
        GpuTelemetry.Builder huge = GpuTelemetry.newBuilder().setUuid("GPU-" + NODE + "-2");
        for (int i = 0; i < 600; i++) huge.addProcesses(GpuProcess.newBuilder().setPid(i).setName("x".repeat(10_000)));
        cases.add(new GrpcCase("Telemetry of 6 MB, over the message size limit", () -> telemetry(node, mine.clone().addGpus(huge).build()),
                Status.Code.RESOURCE_EXHAUSTED, ""));
        cases.add(new GrpcCase("Register with bytes that are no protobuf message", () -> wire.raw("Register", new byte[] {(byte) 0xff, (byte) 0xff,
                (byte) 0xff, 0x0f}, enroll), Status.Code.INVALID_ARGUMENT, "not a valid"));
        cases.add(new GrpcCase("Register with a length that runs past the message", () -> wire.raw("Register", new byte[] {0x0a, 0x7f, 'a'}, enroll),
                Status.Code.INVALID_ARGUMENT, "not a valid"));
        cases.add(new GrpcCase("ReportResult with a wrong wire type", () -> wire.raw("ReportResult", new byte[] {0x0b, 0x01}, node),
                Status.Code.INVALID_ARGUMENT, "not a valid"));
        return cases;
    }

    /** A value as the control plane's errors repeat it (Limits.quote): quoted, control and format characters as they are. */
    private static String quote(String value) {
        return "'" + value + "'";
    }

    private static CommandResult result(String node, String command, boolean success, String error) {
        return CommandResult.newBuilder().setNodeId(node).setCommandId(command).setSuccess(success).setError(error).build();
    }

    private static Status status(Runnable call) {
        try {
            call.run();
            return Status.OK;
        } catch (io.grpc.StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    private Status telemetry(String token, TelemetryReport... reports) {
        CompletableFuture<Status> done = new CompletableFuture<>();
        StreamObserver<TelemetryReport> stream = wire.async(token).telemetry(AgentWire.<TelemetryAck>ending(done));
        for (TelemetryReport r : reports) stream.onNext(r);
        stream.onCompleted();
        try {
            return done.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("telemetry did not answer", e);
        }
    }

    @TestFactory
    @Order(3)
    Stream<DynamicTest> aMutatedBodyNeverCostsA5xx() {
        Random random = new Random(SEED);
        return IntStream.range(0, MUTATED_BODIES).mapToObj(i -> BodyMutations.next(random, templates)).map(m -> DynamicTest.dynamicTest(m.toString(),
                () -> {
                    HttpResponse<String> r = send(m.template().method(), m.template().path(), m.template().token(), BodyMutations.apply(m), null);
                    assertTrue(r.statusCode() < 500, r.statusCode() + " for " + m + " (seed " + SEED + "): " + r.body());
                    if (r.statusCode() >= 400) assertFalse(Horizon.JSON.readTree(r.body()).path("error").asText().isBlank(), "a refusal says why: " + r.body());
                }));
    }

    @TestFactory
    @Order(4)
    Stream<DynamicTest> aMutatedRegistrationNeverCostsAServerFailure() {
        Random random = new Random(SEED + 1);
        byte[] valid = AgentWire.host("fz-host", 2).toByteArray();
        return IntStream.range(0, MUTATED_REGISTRATIONS).mapToObj(i -> {
            byte[] bytes = valid.clone();
            StringBuilder what = new StringBuilder("flips");
            for (int f = 0, flips = 1 + random.nextInt(6); f < flips; f++) {
                int at = random.nextInt(bytes.length);
                int mask = 1 + random.nextInt(255);
                bytes[at] ^= (byte) mask;
                what.append(' ').append(at).append('^').append(mask);
            }
            return DynamicTest.dynamicTest(what.toString(), () -> {
                Status s = wire.raw("Register", bytes, tokens.get("agent"));
                assertFalse(SERVER_FAILURES.contains(s.getCode()), "a server failure for " + what + " (seed " + SEED + "): " + s);
            });
        });
    }

    @Test
    @Order(5)
    void theServiceStillServesAndKeepsEverythingItAcceptedBefore() throws Exception {
        Horizon.Rest admin = new Horizon.Rest(port, ADMIN);
        assertTrue(admin.ready(), "still ready");
        for (Map.Entry<String, JsonNode> k : kept.entrySet()) {
            JsonNode now = admin.json("GET", k.getKey(), null, 200);
            JsonNode compared = k.getKey().startsWith("/api/v1/jobs/") ? now.get("spec") : k.getKey().contains("inference") ? now.get("servedBy") : now;
            assertEquals(k.getValue(), compared, k.getKey() + " is as it was accepted");
        }
        Horizon.Rest submitter = new Horizon.Rest(port, tokens.get("submitter"));
        String id = submitter.json("POST", "/api/v1/jobs", "{\"name\":\"after\",\"team\":\"alpha\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}}", 201)
                .get("id").asText();
        assertEquals("after", submitter.json("GET", "/api/v1/jobs/" + id, null, 200).get("name").asText());
        // the processes the hostile telemetry reported were kept cleaned: 32 of them, names cut, no control character
        JsonNode processes = admin.json("GET", "/api/v1/nodes/" + NODE, null, 200).path("gpus").path(1).path("processes");
        assertEquals(32, processes.size(), "the 32 holding the most memory are kept: " + processes.size());
        for (JsonNode p : processes) {
            String name = p.path("name").asText();
            assertTrue(name.length() <= 128 && name.chars().noneMatch(ch -> ch < 0x20), name);
        }
        JsonNode utilization = admin.json("GET", "/api/v1/nodes/" + NODE, null, 200).path("gpus").path(1).path("utilization");
        assertTrue(utilization.isNull() || utilization.isMissingNode(), "NaN is no utilization: " + utilization);
    }
}
