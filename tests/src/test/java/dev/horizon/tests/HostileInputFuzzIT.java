package dev.horizon.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.agent.v1.Inventory;
import io.grpc.Status;
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
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Property-based: valid request bodies of every endpoint, each changed in one random way (a field's value replaced by
 * random text, control characters, extreme or fractional numbers, another type, deep nesting; a field dropped or added
 * or given twice; the text cut or a character inserted), never get a 5xx from the control plane process; nor do random
 * changes to the bytes of a valid agent registration get a gRPC server failure. On PostgreSQL when
 * HORIZON_TEST_POSTGRES_URL is set (as .ci/run sets it), else on the embedded H2 file.
 *
 * The cases come from a seeded generator (each test's name says its mutation), so a failure is replayed by running
 * again with the seed it printed: -Dhorizon.fuzz.seed=N (plain JUnit dynamic tests; no shrinking, the mutations are
 * one change each).
 */
class HostileInputFuzzIT {
    private static final int BODIES = 400;
    private static final int REGISTRATIONS = 200;
    private static final long SEED = Long.getLong("horizon.fuzz.seed", System.nanoTime());
    private static final String ADMIN = "fuzz-admin";
    private static final Set<Status.Code> SERVER_FAILURES = Set.of(Status.Code.UNKNOWN, Status.Code.INTERNAL, Status.Code.UNAVAILABLE,
            Status.Code.DATA_LOSS, Status.Code.UNIMPLEMENTED);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** A valid request: which token sends it, where, and its body. */
    record Template(String method, String path, String token, String body) {
    }

    /** One change to a template: kind picks what; text, number and size feed it. */
    record Mutation(Template template, int kind, String text, long number, int size) {
        @Override
        public String toString() {
            return template.method() + " " + template.path() + " kind " + kind + " size " + size + " number " + number + " text " + Horizon.JSON
                    .valueToTree(text.length() > 60 ? text.substring(0, 60) : text);
        }
    }

    private static Path dir;
    private static Process service;
    private static int port;
    private static PostgresSchema schema;
    private static AgentWire wire;
    private static final Map<String, String> TOKENS = new HashMap<>();
    private static final List<Template> TEMPLATES = new ArrayList<>();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        System.out.println("HostileInputFuzzIT seed " + SEED + " (replay with -Dhorizon.fuzz.seed=" + SEED + ")");
        dir = Files.createTempDirectory("horizon-fuzz");
        port = Horizon.freePort();
        schema = PostgresSchema.fromEnvironment("fuzz_it").orElse(null);
        service = schema == null ? Horizon.controlPlane(dir, port, ADMIN, "-Dhorizon.nodes=8xH100-80GB,8xH100-80GB")
                : Horizon.controlPlane(dir, port, ADMIN, schema.env(), schema.flywayOption(), "-Dhorizon.nodes=8xH100-80GB,8xH100-80GB");
        Horizon.Rest admin = new Horizon.Rest(port, ADMIN);
        Horizon.await("the control plane's readiness", 90, dir, admin::ready, Boolean::booleanValue);
        admin.json("POST", "/api/v1/teams", "{\"name\":\"alpha\",\"share\":0.5}", 201);
        TOKENS.put("admin", ADMIN);
        TOKENS.put("submitter", admin.json("POST", "/api/v1/tokens", "{\"role\":\"submitter\",\"team\":\"alpha\"}", 201).get("token").asText());
        TOKENS.put("agent", admin.json("POST", "/api/v1/tokens", "{\"role\":\"agent\"}", 201).get("token").asText());
        admin.json("POST", "/api/v1/inference-services", "{\"name\":\"fz-chat\",\"team\":\"alpha\",\"weightPerGpuHour\":5,\"swapCapGpus\":1}", 201);
        String job = admin.json("POST", "/api/v1/jobs", "{\"name\":\"fz\",\"team\":\"alpha\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}}", 201)
                .get("id").asText();
        TEMPLATES.addAll(List.of(
                new Template("POST", "/api/v1/jobs", "submitter", "{\"name\":\"llama-sft-7b\",\"team\":\"alpha\",\"class\":\"TRAINING\",\"priority\":3,"
                        + "\"replicas\":2,\"minReplicas\":1,\"perReplica\":{\"gpus\":4,\"gpuTypes\":[\"H100-80GB\"]},\"gang\":true,\"topology\":\"same-node\","
                        + "\"durationEstimateSeconds\":14400,\"contract\":{\"minRuntimeSeconds\":3600,\"resumable\":true,\"checkpointCostSeconds\":120},"
                        + "\"source\":{\"kind\":\"PyTorchJob\",\"namespace\":\"ml\",\"name\":\"llama-sft-7b\"}}"),
                new Template("POST", "/api/v1/jobs", "submitter", "{\"name\":\"share\",\"team\":\"alpha\",\"class\":\"DEBUG\",\"perReplica\":{\"gpuMilli\":500,"
                        + "\"memoryMiB\":20000}}"),
                new Template("POST", "/api/v1/teams", "admin", "{\"name\":\"fz-team\",\"parent\":\"alpha\",\"share\":0.25}"),
                new Template("PUT", "/api/v1/teams/alpha/budget", "admin", "{\"share\":0.3}"),
                new Template("POST", "/api/v1/tokens", "admin", "{\"role\":\"submitter\",\"team\":\"alpha\",\"label\":\"ci\",\"expiresInSeconds\":60}"),
                new Template("POST", "/api/v1/tokens", "admin", "{\"role\":\"agent\",\"node\":\"fz-node\",\"label\":\"x\"}"),
                new Template("POST", "/api/v1/inference-services", "admin", "{\"name\":\"fz-svc\",\"team\":\"alpha\",\"weightPerGpuHour\":20,\"swapCapGpus\":2,"
                        + "\"servedBy\":[\"node-0\"]}"),
                new Template("POST", "/api/v1/inference-services/fz-chat/demand", "admin", "{\"gpus\":[3.5,4,4.2],\"heldGpus\":4}"),
                new Template("PUT", "/api/v1/mig-policies/fz-pool", "admin", "{\"partitionableModels\":[\"H100-80GB\"],\"allowedProfiles\":[\"1g.10gb\","
                        + "\"3g.40gb\"],\"layout\":\"DYNAMIC\",\"drainTimeSeconds\":300,\"maxConcurrentReconfigurations\":2}"),
                new Template("POST", "/api/v1/nodes/node-0/commands", "admin", "{\"setSharing\":{\"gpuUuid\":\"GPU-x\",\"mode\":\"MPS\",\"replicas\":4,"
                        + "\"activeThreadPercentage\":50,\"memoryLimitMiB\":1000}}"),
                new Template("POST", "/api/v1/jobs/" + job + "/outcome", "admin", "{\"state\":\"SUCCEEDED\"}")));
        wire = AgentWire.plaintext(port);
    }

    @AfterAll
    static void stop() throws Exception {
        if (wire != null) wire.close();
        if (service != null) service.destroyForcibly().waitFor();
        if (schema != null) schema.drop();
    }

    @TestFactory
    Stream<DynamicTest> aMutatedBodyNeverCostsA5xx() {
        Random random = new Random(SEED);
        return IntStream.range(0, BODIES).mapToObj(i -> mutation(random)).map(m -> DynamicTest.dynamicTest(m.toString(), () -> send(m)));
    }

    private static void send(Mutation m) throws Exception {
        String body = apply(m);
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + m.template().path())).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKENS.get(m.template().token()))
                .method(m.template().method(), HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 500) throw new AssertionError(r.statusCode() + " for " + m + " (seed " + SEED + "): " + r.body());
        if (r.statusCode() >= 400 && Horizon.JSON.readTree(r.body()).path("error").asText().isBlank()) {
            throw new AssertionError("a refusal without its reason for " + m + ": " + r.body());
        }
    }

    @TestFactory
    Stream<DynamicTest> aMutatedRegistrationNeverCostsAServerFailure() {
        Random random = new Random(SEED + 1);
        byte[] valid = Inventory.newBuilder(AgentWire.host("fz-host", 2)).build().toByteArray();
        return IntStream.range(0, REGISTRATIONS).mapToObj(i -> {
            byte[] bytes = valid.clone();
            int flips = 1 + random.nextInt(6);
            StringBuilder what = new StringBuilder("flips");
            for (int f = 0; f < flips; f++) {
                int at = random.nextInt(bytes.length);
                int mask = 1 + random.nextInt(255);
                bytes[at] ^= (byte) mask;
                what.append(' ').append(at).append('^').append(mask);
            }
            return DynamicTest.dynamicTest(what.toString(), () -> {
                Status s = wire.raw("Register", bytes, TOKENS.get("agent"));
                if (SERVER_FAILURES.contains(s.getCode())) throw new AssertionError("a server failure for " + what + " (seed " + SEED + "): " + s);
            });
        });
    }

    /** One random change to one random template: the kind, some random text, a number (often an extreme one) and a size. */
    private static Mutation mutation(Random random) {
        long[] extremes = {0, -1, 2147483647L, 2147483648L, Long.MAX_VALUE, Long.MIN_VALUE};
        long number = random.nextBoolean() ? extremes[random.nextInt(extremes.length)] : random.nextLong();
        return new Mutation(TEMPLATES.get(random.nextInt(TEMPLATES.size())), random.nextInt(12), text(random, random.nextInt(300)), number,
                random.nextInt(3000));
    }

    /** Random text: mostly printable, with control characters, non-Latin letters and surrogate halves mixed in. */
    private static String text(Random random, int length) {
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            int pick = random.nextInt(10);
            out.append(pick < 6 ? (char) (0x20 + random.nextInt(0x5f)) : pick < 8 ? (char) random.nextInt(0x20) : pick < 9
                    ? (char) (0x4e00 + random.nextInt(0x500)) : (char) (0xd800 + random.nextInt(0x800)));
        }
        return out.toString();
    }

    /** The template's body with m's one change. */
    static String apply(Mutation m) throws Exception {
        String body = m.template().body();
        switch (m.kind()) {
            case 9:
                return body.substring(0, Math.min(body.length(), m.size() % (body.length() + 1)));
            case 10:
                int at = m.size() % (body.length() + 1);
                return body.substring(0, at) + (m.text().isEmpty() ? "\u0000" : m.text().substring(0, 1)) + body.substring(at);
            case 11:
                // the first key twice: once with the random text, then with its own value
                java.util.regex.Matcher first = java.util.regex.Pattern.compile("\\{\"(\\w+)\":").matcher(body);
                if (!first.find()) return body;
                return body.substring(0, first.end()) + Horizon.JSON.writeValueAsString(m.text()) + ",\"" + first.group(1) + "\":"
                        + body.substring(first.end());
            default:
                ObjectNode tree = (ObjectNode) Horizon.JSON.readTree(body);
                List<ObjectNode> parents = new ArrayList<>();
                collect(tree, parents);
                ObjectNode parent = parents.get(m.size() % parents.size());
                List<String> names = new ArrayList<>();
                parent.fieldNames().forEachRemaining(names::add);
                String field = names.get((int) Math.floorMod(m.number(), (long) names.size()));
                change(parent, field, m);
                return Horizon.JSON.writeValueAsString(tree);
        }
    }

    private static void collect(ObjectNode node, List<ObjectNode> out) {
        out.add(node);
        node.elements().forEachRemaining(child -> {
            if (child instanceof ObjectNode o) collect(o, out);
        });
    }

    private static void change(ObjectNode parent, String field, Mutation m) {
        switch (m.kind()) {
            case 0 -> parent.put(field, m.text());
            case 1 -> parent.put(field, m.text().repeat(Math.max(1, 10_000 / Math.max(1, m.text().length()))));
            case 2 -> parent.put(field, m.number());
            case 3 -> parent.put(field, m.number() / 7.0);
            case 4 -> parent.set(field, deep(m.size() % 500));
            case 5 -> parent.remove(field);
            case 6 -> parent.put(m.text().isEmpty() ? "x" : m.text(), m.number());
            case 7 -> parent.set(field, m.number() % 2 == 0 ? NODES.nullNode() : NODES.booleanNode(true));
            default -> parent.set(field, NODES.arrayNode().add(m.text()).add(m.number()));
        }
    }

    private static JsonNode deep(int depth) {
        ArrayNode root = NODES.arrayNode();
        ArrayNode at = root;
        for (int i = 0; i < depth; i++) at = at.addArray();
        return root;
    }
}
