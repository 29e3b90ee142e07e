package dev.horizon.service.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.api.JobClass;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.security.Caller;
import dev.horizon.service.store.Db;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.ApiTime;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * The runs of jobs (one row per job, node and run, as run_segments holds them) that were going on at any time since a
 * moment: what the web view draws left of "now" on its Gantt chart, with the runs a preemption or an inference service
 * cut short marked by how they ended. Other teams' runs come without the job's name, as the plan shows them.
 */
@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
public class RunResource {
    /** The most runs one answer holds, newest first; older ones are left out. */
    static final int MAX_RUNS = 5000;
    /** A week: the fair-share window, the longest look back the web view asks for. */
    static final long MAX_LOOK_BACK_SECONDS = 7 * 86_400;

    /**
     * placement: the job's whole placement when the run began ("node-1[0-3]", "node-2[5-5:3g.40gb@4]"); gpus: what it held
     * on this node (a MIG instance or share by its fraction); endedAt and endReason (SUCCEEDED, FAILED, CANCELLED,
     * PREEMPTED, EVICTED, NODE_LOST) are absent while it runs; fill: it began on lent GPUs.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Run(String jobId, String name, String team, @JsonProperty("class") JobClass jobClass, String node, String placement, double gpus,
                      boolean fill, @JsonSerialize(using = ApiTime.Seconds.class) long startedAt, @JsonSerialize(using = ApiTime.Seconds.class) Long endedAt, String endReason) {
    }

    @Inject
    Db db;
    @Inject
    ServiceClock clock;
    @Inject
    Caller caller;

    /** since: an ISO-8601 UTC time; runs that ended before it are left out. Default: the last two hours. */
    @GET
    public List<Run> since(@QueryParam("since") String since) {
        long now = clock.seconds();
        long from = since == null ? now - 2 * 3600 : parse(since, now);
        List<Run> newestFirst = db.query("SELECT s.job_id, j.name, s.team, j.job_class, s.node, s.placement, s.gpus, s.fill, s.started_at, s.ended_at,"
                + " s.end_reason FROM run_segments s JOIN jobs j ON j.id = s.job_id WHERE s.ended_at IS NULL OR s.ended_at >= ?"
                + " ORDER BY s.started_at DESC, s.id DESC LIMIT " + MAX_RUNS, ps -> ps.setLong(1, from), rs -> new Run(rs.getString(1),
                        caller.seesTeam(rs.getString(3)) ? rs.getString(2) : null, rs.getString(3), JobClass.valueOf(rs.getString(4)), rs.getString(5), rs.getString(6), rs.getDouble(7),
                        rs.getBoolean(8), rs.getLong(9), (Long) rs.getObject(10, Long.class), rs.getString(11)));
        List<Run> oldestFirst = new java.util.ArrayList<>(newestFirst);
        java.util.Collections.reverse(oldestFirst);
        return oldestFirst;
    }

    private static long parse(String since, long now) {
        long s = ApiTime.parseSeconds("since", since);
        if (s < now - MAX_LOOK_BACK_SECONDS) {
            throw new ApiException(400, "invalid query", List.of("since reaches back more than 7 days (" + (now - s) + " s); ask for at most "
                    + MAX_LOOK_BACK_SECONDS + " s before now (" + ApiTime.ofSeconds(now - MAX_LOOK_BACK_SECONDS) + ")"));
        }
        return s;
    }
}
