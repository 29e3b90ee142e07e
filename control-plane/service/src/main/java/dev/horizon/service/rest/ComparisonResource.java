package dev.horizon.service.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.security.Caller;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoredJson;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.ApiTime;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;

/**
 * What the same workload gave under other schedulers, beside what this control plane delivers: figures an admin stores
 * (./horizon demo stores the simulator's FIFO, best-baseline and Horizon runs of the day it replays) and the web view
 * shows. The service computes none of them; it checks their shape and keeps them. A comparison may be stored while its
 * figures are still being computed ({@code "computing": true}, no policies yet) and may say which simulated period it is
 * about ({@code window}): the web view then shows how far the clock has come through it, that it is over, and that the
 * figures are on their way.
 */
@Path("/api/v1/comparisons")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ComparisonResource {
    private static final String NAME_PATTERN = "[a-z0-9][a-z0-9-]{0,63}";
    private static final int MAX_POLICIES = 20;
    private static final int MAX_TEXT = 500;
    private static final String EXAMPLE = "{\"scenario\":\"a day of the Philly log on 16 GPUs\",\"command\":\"./horizon bench --scenario FILE\","
            + "\"bestBaseline\":\"kai\",\"policies\":[{\"policy\":\"fifo\",\"utilization\":0.61,\"jobsCompleted\":40}]}";
    private static final TypeReference<Comparison> STORED = new TypeReference<>() { };

    /**
     * One scheduler's figures over the workload: utilization (GPU-time busy over GPU-time, 0..1), jobs completed and
     * arrived, preemptions, waits (p50/p95 seconds, from arrival to first start), the worst team's owed GPU-hours
     * delivered (0..1), inference minutes whose demand was met (0..1), priority-weighted output (GPU-hours x weight).
     * engine: what ran it (simulator, or live for this control plane).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Figures(String policy, String engine, Double utilization, Integer jobsCompleted, Integer jobsArrived, Integer preemptions,
                          Double waitP50Seconds, Double waitP95Seconds, Double worstTeamOwedDelivered, Double rtSloAttainment,
                          Double priorityWeightedOutput) {
    }

    /** The period the workload covers on this control plane's clock (./horizon demo: the day it replays), ISO-8601 both. */
    public record Window(@JsonSerialize(using = ApiTime.Seconds.class) @JsonDeserialize(using = ApiTime.SecondsReader.class) Long from,
                         @JsonSerialize(using = ApiTime.Seconds.class) @JsonDeserialize(using = ApiTime.SecondsReader.class) Long to) {
    }

    /**
     * scenario: the workload in words; command: what produced the figures; bestBaseline: the policy the view puts beside
     * Horizon; window: the period it covers (optional); computing: the figures are being computed (policies may be empty).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Comparison(String name, String scenario, String command, String bestBaseline, Window window, Boolean computing, List<Figures> policies,
                             @JsonSerialize(using = ApiTime.Millis.class) @JsonDeserialize(using = ApiTime.MillisReader.class) Long storedAt) {
        boolean isComputing() {
            return Boolean.TRUE.equals(computing);
        }
    }

    @Inject
    Db db;
    @Inject
    Caller caller;
    @Inject
    ServiceClock clock;

    @GET
    public List<Comparison> list() {
        return db.query("SELECT body FROM comparisons ORDER BY name", ps -> { }, rs -> StoredJson.read(rs.getString(1), STORED));
    }

    @PUT
    @Path("/{name}")
    public Comparison store(@PathParam("name") String name, String body) {
        caller.requireAdmin("storing comparison figures");
        Comparison given = JsonBodies.read(body, Comparison.class, EXAMPLE);
        List<String> problems = problems(name, given);
        if (!problems.isEmpty()) throw new ApiException(400, "invalid comparison", problems);
        Comparison stored = new Comparison(name, given.scenario(), given.command(), given.bestBaseline(), given.window(), given.computing(),
                given.policies() == null ? List.of() : given.policies(), clock.millis());
        String json = StoredJson.write(stored);
        db.inTransaction(c -> {
            Db.update(c, "DELETE FROM comparisons WHERE name = ?", ps -> ps.setString(1, name));
            return Db.update(c, "INSERT INTO comparisons (name, body, stored_at) VALUES (?, ?, ?)", ps -> {
                ps.setString(1, name);
                ps.setString(2, json);
                ps.setLong(3, stored.storedAt());
            });
        });
        return stored;
    }

    static List<String> problems(String name, Comparison c) {
        List<String> out = new ArrayList<>();
        if (!name.matches(NAME_PATTERN)) out.add("name (in the path) must be lower-case letters, digits and '-', 1 to 64 characters");
        if (c.name() != null && !c.name().equals(name)) out.add("name: leave it out or give the name of the path ('" + name + "')");
        text("scenario", c.scenario(), true, out);
        text("command", c.command(), false, out);
        text("bestBaseline", c.bestBaseline(), false, out);
        window(c.window(), out);
        int given = c.policies() == null ? 0 : c.policies().size();
        if (given > MAX_POLICIES || given == 0 && !c.isComputing()) {
            out.add("policies: give 1 to " + MAX_POLICIES + " policies' figures (none only with \"computing\": true), for example " + EXAMPLE);
            return out;
        }
        for (int i = 0; i < given; i++) {
            Figures f = c.policies().get(i);
            String at = "policies[" + i + "].";
            if (f == null) {
                out.add(at.substring(0, at.length() - 1) + ": a policy's figures are an object");
                continue;
            }
            text(at + "policy", f.policy(), true, out);
            text(at + "engine", f.engine(), false, out);
            share(at + "utilization", f.utilization(), out);
            share(at + "worstTeamOwedDelivered", f.worstTeamOwedDelivered(), out);
            share(at + "rtSloAttainment", f.rtSloAttainment(), out);
            count(at + "jobsCompleted", f.jobsCompleted(), out);
            count(at + "jobsArrived", f.jobsArrived(), out);
            count(at + "preemptions", f.preemptions(), out);
            amount(at + "waitP50Seconds", f.waitP50Seconds(), out);
            amount(at + "waitP95Seconds", f.waitP95Seconds(), out);
            amount(at + "priorityWeightedOutput", f.priorityWeightedOutput(), out);
        }
        if (c.bestBaseline() != null && (given == 0 || c.policies().stream().noneMatch(f -> f != null && c.bestBaseline().equals(f.policy())))) {
            out.add("bestBaseline: '" + c.bestBaseline() + "' is none of the policies given");
        }
        return out;
    }

    private static void window(Window w, List<String> out) {
        if (w == null) return;
        if (w.from() == null || w.to() == null) {
            out.add("window: give both from and to as ISO-8601 UTC times, such as {\"from\":\"2026-09-24T00:00:00Z\",\"to\":\"2026-09-25T00:00:00Z\"}");
        } else if (w.to() <= w.from()) {
            out.add("window.to must be after window.from (got " + ApiTime.ofSeconds(w.from()) + " to " + ApiTime.ofSeconds(w.to()) + ")");
        }
    }

    private static void text(String field, String value, boolean required, List<String> out) {
        if (value == null || value.isBlank()) {
            if (required) out.add(field + " is required");
        } else if (value.length() > MAX_TEXT) {
            out.add(field + " is longer than " + MAX_TEXT + " characters");
        }
    }

    private static void share(String field, Double v, List<String> out) {
        if (v != null && !(v >= 0 && v <= 1)) out.add(field + " must be between 0 and 1 (got " + v + ")");
    }

    private static void count(String field, Integer v, List<String> out) {
        if (v != null && v < 0) out.add(field + " must be 0 or more (got " + v + ")");
    }

    private static void amount(String field, Double v, List<String> out) {
        if (v != null && !(v >= 0 && Double.isFinite(v))) out.add(field + " must be a number, 0 or more (got " + v + ")");
    }
}
