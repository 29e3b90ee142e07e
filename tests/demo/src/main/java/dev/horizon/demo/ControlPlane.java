package dev.horizon.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobJson;
import dev.horizon.api.scheduler.IsoSeconds;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The control plane's REST API as the demo's world uses it, with one token per call: what users, adapters, agents and
 * an inference service's autoscaler would each send. A refused call ends the demo with the status and the API's answer.
 */
final class ControlPlane {
    static final ObjectMapper JSON = JobJson.mapper();

    private final String url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ControlPlane(String url) {
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** A call the API refused or that did not reach it. */
    static final class Refused extends RuntimeException {
        final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    JsonNode get(String path, String token) {
        return call("GET", path, null, token, 200);
    }

    JsonNode post(String path, Object body, String token, int expected) {
        return call("POST", path, body, token, expected);
    }

    JsonNode put(String path, Object body, String token) {
        return put(path, body, token, 200);
    }

    JsonNode put(String path, Object body, String token, int expected) {
        return call("PUT", path, body, token, expected);
    }

    /** Every job in a state, walking the pages the API hands out. */
    List<JsonNode> jobs(String state, String token) {
        List<JsonNode> out = new ArrayList<>();
        String cursor = null;
        do {
            HttpResponse<String> r = send("GET", "/api/v1/jobs?state=" + state + "&limit=1000" + (cursor == null ? "" : "&cursor=" + cursor), null, token);
            check(r, 200, "GET /api/v1/jobs");
            read(r.body()).forEach(out::add);
            cursor = r.headers().firstValue("Horizon-Next-Cursor").orElse(null);
        } while (cursor != null);
        return out;
    }

    private JsonNode call(String method, String path, Object body, String token, int expected) {
        HttpResponse<String> r = send(method, path, body, token);
        check(r, expected, method + " " + path);
        return r.body().isEmpty() ? JSON.createObjectNode() : read(r.body());
    }

    private HttpResponse<String> send(String method, String path, Object body, String token) {
        String text;
        try {
            text = body == null ? null : body instanceof String s ? s : JSON.writeValueAsString(body);
        } catch (IOException e) {
            throw new IllegalStateException("the demo's own request bodies always serialise", e);
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .method(method, text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text));
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Refused(0, method + " " + path + ": the control plane at " + url + " did not answer (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(0, method + " " + path + ": interrupted");
        }
    }

    private static void check(HttpResponse<String> r, int expected, String what) {
        if (r.statusCode() != expected) throw new Refused(r.statusCode(), what + " answered " + r.statusCode() + ": " + r.body());
    }

    private static JsonNode read(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new Refused(0, "the control plane answered something that is not JSON: " + body);
        }
    }

    /** The control plane's clock, in epoch seconds. */
    long now(String token) {
        return seconds(get("/api/v1/clock", token), "now");
    }

    /** A time field the API wrote (ISO-8601 UTC) in epoch seconds; a missing one is the API breaking its contract. */
    static long seconds(JsonNode node, String field) {
        Long s = IsoSeconds.of(node, field);
        if (s == null) throw new Refused(0, "the control plane's answer has no time " + field + ": " + node);
        return s;
    }

    /** Epoch seconds as the API reads a time. */
    static String iso(long epochSeconds) {
        return Instant.ofEpochSecond(epochSeconds).toString();
    }

    static ObjectNode object() {
        return JSON.createObjectNode();
    }
}
