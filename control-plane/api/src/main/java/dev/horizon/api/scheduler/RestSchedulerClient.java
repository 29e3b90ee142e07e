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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link SchedulerClient} over the control plane's REST API ({@code /api/v1/jobs}) with a bearer
 * token. Reporting outcomes needs an agent or admin token; the rest works with a submitter's. Placements pass through a
 * {@link LeaderEpochFence}, so the adapters using this client never act on a deposed leader's placement.
 */
public final class RestSchedulerClient implements SchedulerClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NO_ROOM_IN_HORIZON = "no-room-in-horizon";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
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
        this.base = controlPlane.resolve("/api/v1/jobs");
        this.token = token;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(TIMEOUT);
        if (ca != null) b.sslContext(TrustedCa.sslContext(ca));
        this.http = b.build();
    }

    @Override
    public String submit(JobSpec job) {
        return call("POST", "", JobJson.write(job), Set.of(201)).path("id").asText();
    }

    @Override
    public SchedulerJob job(String id) {
        JsonNode view = call("GET", "/" + id, null, Set.of(200));
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
        JsonNode e = call("GET", "/" + id + "/explanation" + (alternatives ? "" : "?alternatives=false"), null, Set.of(200));
        Map<String, Long> ahead = JSON.convertValue(e.path("rankedAheadByTeam").isObject() ? e.get("rankedAheadByTeam") : JSON.createObjectNode(),
                JSON.getTypeFactory().constructMapType(Map.class, String.class, Long.class));
        // the planner's rule for a job its plan has no start for within the horizon
        boolean beyondHorizon = NO_ROOM_IN_HORIZON.equals(e.path("rule").asText());
        // a control plane older than the bands sends only plannedStart (the same time)
        return new Explanation(e.path("reason").asText(null), seconds(e, e.has("plannedStartAt") ? "plannedStartAt" : "plannedStart"), ahead,
                seconds(e, "startP50At"), seconds(e, "startP90At"), seconds(e, "bandsAt"), beyondHorizon,
                list(e, "alternatives", ALTERNATIVES), list(e, "ahead", AHEAD), e.path("startBandNote").asText(null));
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
        call("DELETE", "/" + id, null, Set.of(200, 404, 409));
    }

    /** A job the control plane no longer runs (409) has nothing left to release. */
    @Override
    public void finish(String id, boolean succeeded) {
        call("POST", "/" + id + "/outcome", "{\"state\":\"" + (succeeded ? "SUCCEEDED" : "FAILED") + "\"}", Set.of(200, 409));
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
        URI uri = URI.create(base + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Authorization", "Bearer " + token)
                .header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) request.header("Content-Type", "application/json");
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (!accepted.contains(response.statusCode())) {
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
