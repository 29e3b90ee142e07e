package dev.horizon.service.planning;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.horizon.api.JobClass;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.security.Caller;
import dev.horizon.service.web.ApiException;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The current plan: committed placements (GPUs x time from start to estimated end) and, per pending
 * job, where the last plan put its start. This is what the web view draws as a Gantt chart.
 */
@Path("/api/v1/plan")
@Produces(MediaType.APPLICATION_JSON)
public class PlanResource {
    /** estimatedEnd: when the planner expects it to finish (null for a job started after the last plan). */
    public record Block(String jobId, String name, String team, @JsonProperty("class") JobClass jobClass, String placement, boolean fill,
                        long start, Long estimatedEnd) {
    }

    /** estimatedSeconds: how long the planner expects it to run once started. */
    public record Waiting(String jobId, String name, String team, @JsonProperty("class") JobClass jobClass, int gpus, String rule,
                          String reason, Integer queuePosition, Long plannedStart, Long estimatedSeconds) {
    }

    public record PlanView(long plannedAt, long stepSeconds, int horizonSteps, List<String> nodes, int totalGpus, int busyGpus,
                           double utilization, double decisionMillis, List<Block> running, List<Waiting> pending,
                           Map<String, Integer> inferenceReservedGpus) {
    }

    @Inject
    Planner planner;
    @Inject
    JobStore jobs;
    @Inject
    PlanHistory history;
    @Inject
    Leadership leadership;
    @Inject
    Caller caller;

    @GET
    public PlanView current() {
        Planner.PlanSnapshot p = planner.lastPlan();
        if (p == null && !leadership.leading()) {
            throw new ApiException(503, "this replica follows and has made no plan; the plan is the leader's: GET /api/leader says which replica leads");
        }
        if (p == null) throw new ApiException(503, "the planner has not run yet; retry in a moment");
        List<Block> running = new ArrayList<>();
        List<Waiting> pending = new ArrayList<>();
        for (JobRow j : jobs.active()) {
            Long left = p.estimatedSecondsLeft().get(j.id());
            // other teams' work shows as GPUs held or asked for, without its name or the planner's words about it
            boolean own = caller.seesTeam(j.team());
            if (j.state() == JobState.RUNNING) {
                running.add(new Block(j.id(), own ? j.name() : null, j.team(), j.jobClass(), j.placement(), j.fill(), j.startedAt(),
                        left == null ? null : p.now() + left));
            } else {
                pending.add(new Waiting(j.id(), own ? j.name() : null, j.team(), j.jobClass(), j.gpus(), own ? j.rule() : null, own ? j.reason() : null,
                        j.queueRank(), j.plannedStart(), left));
            }
        }
        pending.sort(java.util.Comparator.comparing(Waiting::queuePosition, java.util.Comparator.nullsLast(Integer::compare)));
        return new PlanView(p.now(), p.stepSeconds(), p.horizonSteps(), p.nodeNames(), p.totalGpus(), p.busyGpus(),
                p.totalGpus() == 0 ? 0 : (double) p.busyGpus() / p.totalGpus(), p.decisionMillis(), running, pending,
                p.inferenceReservedGpus());
    }

    /** Utilization and inference demand as each recent plan left them, oldest first: the web view's chart. */
    @GET
    @Path("/history")
    public List<PlanHistory.Point> history() {
        return history.points();
    }
}
