package dev.horizon.api.scheduler;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.api.integration.PlannedPlacement;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link SchedulerClient} over the control plane's REST API ({@code /api/v1/jobs}) with a bearer
 * token, and {@link InferenceServices} over {@code /api/v1/inference-services}, {@code /nodes} and {@code /plan}.
 * Reporting outcomes and held GPUs needs an agent or admin token; the rest works with a submitter's. Placements pass through a
 * {@link LeaderEpochFence}, so the adapters using this client never act on a deposed leader's placement.
 */
public final class RestSchedulerClient implements SchedulerClient, InferenceServices {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NO_ROOM_IN_HORIZON = "no-room-in-horizon";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String JOBS = "/api/v1/jobs";
    private static final String SERVICES = "/api/v1/inference-services";
    /** A placement's slice, "node-1[0-3]" or with a MIG or sharing suffix "node-1[2-2:3g.40gb@4]", as the control plane stores it. */
    private static final Pattern SLICE = Pattern.compile("(.+)\\[(\\d+)-(\\d+)(?::[^\\]]+)?\\]");
    private static final TypeReference<List<PlannedDevice>> DEVICES = new TypeReference<>() {
    };
    private static final TypeReference<List<Explanation.Alternative>> ALTERNATIVES = new TypeReference<>() {
    };
    private static final TypeReference<List<Explanation.Ahead>> AHEAD = new TypeReference<>() {
    };

    private final URI base;
    private final String token;
    private final HttpClient http;
    private final LeaderEpochFence fence = new LeaderEpochFence();

    public RestSchedulerClient(URI controlPlane, String token) {
        this(controlPlane, token, null);
    }

    /** ca: the PEM CA certificate an https control plane's certificate is verified against; null for the JVM's trust store. */
    public RestSchedulerClient(URI controlPlane, String token, java.nio.file.Path ca) {
        this.base = controlPlane.resolve("/");
        this.token = token;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(TIMEOUT);
        if (ca != null) b.sslContext(TrustedCa.sslContext(ca));
        this.http = b.build();
    }

    @Override
    public String submit(JobSpec job) {
        return call("POST", JOBS, JobJson.write(job), Set.of(201)).path("id").asText();
    }

    @Override
    public SchedulerJob job(String id) {
        JsonNode view = call("GET", JOBS + "/" + id, null, Set.of(200));
        SchedulerJob.State state = SchedulerJob.State.valueOf(view.path("state").asText());
        String placement = view.path("placement").asText("");
        String mig = view.path("spec").path("perReplica").path("migProfile").asText(null);
        boolean placed = state == SchedulerJob.State.RUNNING && !placement.isEmpty();
        List<PlannedDevice> devices = view.path("devices").isArray() ? JSON.convertValue(view.get("devices"), DEVICES) : List.of();
        return fence.admit(new SchedulerJob(id, state, placed ? new PlannedPlacement(nodes(placement), mig, devices) : null,
                placed ? view.path("leaderEpoch").asLong(0) : 0));
    }

    @Override
    public Explanation explanation(String id, boolean alternatives) {
        JsonNode e = call("GET", JOBS + "/" + id + "/explanation" + (alternatives ? "" : "?alternatives=false"), null, Set.of(200));
        Map<String, Long> ahead = JSON.convertValue(e.path("rankedAheadByTeam").isObject() ? e.get("rankedAheadByTeam") : JSON.createObjectNode(),
                JSON.getTypeFactory().constructMapType(Map.class, String.class, Long.class));
        // the planner's rule for a job its plan has no start for within the horizon
        boolean beyondHorizon = NO_ROOM_IN_HORIZON.equals(e.path("rule").asText());
        // a control plane older than the bands sends only plannedStart (the same time)
        return new Explanation(e.path("reason").asText(null), seconds(e, e.has("plannedStartAt") ? "plannedStartAt" : "plannedStart"), ahead,
                seconds(e, "startP50At"), seconds(e, "startP90At"), seconds(e, "bandsAt"), beyondHorizon,
                list(e, "alternatives", ALTERNATIVES), list(e, "ahead", AHEAD), e.path("startBandNote").asText(null),
                seconds(e, "queueAloneP50At"), seconds(e, "queueAloneP90At"));
    }

    private static Long seconds(JsonNode e, String field) {
        return IsoSeconds.of(e, field);
    }

    private static <T> List<T> list(JsonNode e, String field, TypeReference<List<T>> type) {
        return e.path(field).isArray() ? JSON.convertValue(e.get(field), type) : List.of();
    }

    /** Cancelling a job that already ended (409) or is gone (404) is what was wanted. */
    @Override
    public void cancel(String id) {
        call("DELETE", JOBS + "/" + id, null, Set.of(200, 404, 409));
    }

    /** A job the control plane no longer runs (409) has nothing left to release. */
    @Override
    public void finish(String id, boolean succeeded) {
        call("POST", JOBS + "/" + id + "/outcome", "{\"state\":\"" + (succeeded ? "SUCCEEDED" : "FAILED") + "\"}", Set.of(200, 409));
    }

    @Override
    public Optional<InferenceServices.Service> service(String name) {
        JsonNode view = call("GET", SERVICES + "/" + name, null, Set.of(200, 404));
        return view.has("name") ? Optional.of(service(view)) : Optional.empty();
    }

    @Override
    public List<InferenceServices.Service> services() {
        List<InferenceServices.Service> out = new ArrayList<>();
        call("GET", SERVICES, null, Set.of(200)).forEach(view -> out.add(service(view)));
        return out;
    }

    private static InferenceServices.Service service(JsonNode view) {
        List<String> held = new ArrayList<>();
        view.path("heldOn").forEach(uuid -> held.add(uuid.asText()));
        return new InferenceServices.Service(view.path("name").asText(), view.path("forecast").path(0).asDouble(0), held);
    }

    @Override
    public void declare(String name, String team, double weightPerGpuHour, int swapCapGpus) {
        ObjectNode body = JSON.createObjectNode().put("name", name).put("team", team).put("weightPerGpuHour", weightPerGpuHour).put("swapCapGpus", swapCapGpus);
        call("POST", SERVICES, body.toString(), Set.of(201));
    }

    @Override
    public void remove(String name) {
        call("DELETE", SERVICES + "/" + name, null, Set.of(204, 404));
    }

    @Override
    public void hold(String name, List<String> gpuUuids) {
        ObjectNode body = JSON.createObjectNode();
        gpuUuids.forEach(body.putArray("gpuUuids")::add);
        call("PUT", SERVICES + "/" + name + "/held", body.toString(), Set.of(200));
    }

    @Override
    public ClusterGpus gpus() {
        List<Gpu> gpus = new ArrayList<>();
        Map<String, String> uuids = new HashMap<>();
        Map<String, String> domains = new HashMap<>();
        for (JsonNode node : call("GET", "/api/v1/nodes", null, Set.of(200))) {
            if (node.path("nvlinkDomain").isTextual()) domains.put(node.path("name").asText(), node.path("nvlinkDomain").asText());
            for (JsonNode g : node.path("gpus")) {
                Gpu gpu = new Gpu(node.path("name").asText(), g.path("index").asInt(), g.path("uuid").asText());
                gpus.add(gpu);
                uuids.put(gpu.node() + "/" + gpu.index(), gpu.uuid());
            }
        }
        List<Running> running = new ArrayList<>();
        JsonNode plan = call("GET", "/api/v1/plan", null, Set.of(200, 503));
        Set<String> heldForWideJob = new HashSet<>();
        plan.path("nodesHeldForWideJob").forEach(n -> heldForWideJob.add(n.asText()));
        for (JsonNode block : plan.path("running")) {
            Long start = IsoSeconds.of(block, "start");
            running.add(new Running(block.path("jobId").asText(), slices(block.path("placement").asText(""), uuids), block.path("fill").asBoolean(),
                    start == null ? 0 : start));
        }
        return new ClusterGpus(gpus, running, domains, heldForWideJob);
    }

    /** The GPUs of a stored placement, with the uuids the nodes registered (null for a GPU no node lists now). */
    static List<Gpu> slices(String placement, Map<String, String> uuids) {
        List<Gpu> out = new ArrayList<>();
        for (String part : placement.split("\\+")) {
            Matcher m = SLICE.matcher(part.trim());
            if (!m.matches()) continue;
            for (int i = Integer.parseInt(m.group(2)); i <= Integer.parseInt(m.group(3)); i++) {
                out.add(new Gpu(m.group(1), i, uuids.get(m.group(1) + "/" + i)));
            }
        }
        return out;
    }

    /** The node names of a placement in the control plane's form, "node-1[0-3]+node-2[0-7]". */
    static List<String> nodes(String placement) {
        List<String> nodes = new ArrayList<>();
        for (String part : placement.split("\\+")) {
            int bracket = part.indexOf('[');
            String node = (bracket < 0 ? part : part.substring(0, bracket)).trim();
            if (!node.isEmpty() && !nodes.contains(node)) nodes.add(node);
        }
        return nodes;
    }

    private JsonNode call(String method, String path, String body, Set<Integer> accepted) {
        URI uri = base.resolve(path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Authorization", "Bearer " + token)
                .header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) request.header("Content-Type", "application/json");
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (!accepted.contains(response.statusCode())) {
                if (response.statusCode() / 100 == 4) throw new SchedulerRefused(method + " " + uri, response.statusCode(), response.body());
                throw new SchedulerException(method + " " + uri + " answered " + response.statusCode() + ": " + response.body(), null);
            }
            return response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
        } catch (IOException e) {
            throw new SchedulerException(method + " " + uri + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchedulerException(method + " " + uri + " was interrupted", e);
        }
    }
}
