package dev.horizon.service.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSpec;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.StartOutlook;
import dev.horizon.service.jobs.WaitReasons;
import dev.horizon.service.planning.FullMode;
import dev.horizon.service.planning.MomentReader;
import dev.horizon.service.planning.PlanHistory;
import dev.horizon.service.planning.PlanStore;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.security.Caller;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.ApiTime;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The current plan: committed placements (GPUs x time from start to estimated end) and, per pending
 * job, where the last plan put its start. This is what the web view draws as a Gantt chart. Every replica answers
 * from the store, so a follower shows the leader's plan and its history.
 */
@Path("/api/v1/plan")
@Produces(MediaType.APPLICATION_JSON)
public class PlanResource {
    /** estimatedEnd: when the planner expects it to finish (null for a job started after the last plan). */
    public record Block(String jobId, String name, String team, @JsonProperty("class") JobClass jobClass, String placement, boolean fill,
                        @JsonSerialize(using = ApiTime.Seconds.class) long start, @JsonSerialize(using = ApiTime.Seconds.class) Long estimatedEnd) {
    }

    /**
     * estimatedSeconds: how long the planner expects it to run once started; startP50At, startP90At, startBandNote: its
     * start band and what to know of it, as the job view gives them (null: none can be given, and the note says why; the
     * note only to the job's own team, as its reason), so the web view needs no second call for them; queueAloneP50At,
     * queueAloneP90At: where the band has no P90, when the queue alone would start it, as the job view gives them.
     * replicas with migProfile or gpuMilli: what a fractional job asks for per replica (a MIG instance, a time-slicing
     * share in thousandths of a GPU), as its job JSON's perReplica says it, so that the web view shows "1x3g.40gb" as
     * ./horizon jobs does, not the 1 GPU it counts as; null for whole-GPU work. Any team sees them, as it sees the
     * shares in a running job's placement. heldAt: since when it is held (null: not held): no plan places it, so it has
     * neither planned start nor band, and the web view says "held".
     */
    public record Waiting(String jobId, String name, String team, @JsonProperty("class") JobClass jobClass, int gpus, String rule,
                          String reason, Integer queuePosition, @JsonSerialize(using = ApiTime.Seconds.class) Long plannedStart, Long estimatedSeconds,
                          @JsonSerialize(using = ApiTime.Seconds.class) Long startP50At, @JsonSerialize(using = ApiTime.Seconds.class) Long startP90At,
                          String startBandNote, @JsonSerialize(using = ApiTime.Seconds.class) Long queueAloneP50At,
                          @JsonSerialize(using = ApiTime.Seconds.class) Long queueAloneP90At, Integer replicas, String migProfile, Integer gpuMilli,
                          @JsonSerialize(using = ApiTime.Seconds.class) Long heldAt) {
    }

    /** A waiting job's fractional ask per replica, from its job JSON; all null for whole GPUs. */
    private record Ask(Integer replicas, String migProfile, Integer gpuMilli) {
        static final Ask WHOLE = new Ask(null, null, null);

        static Ask of(JobRow j) {
            // the plan is polled every few seconds with every waiting job in it: only the specs that name a slice are parsed
            if (j.spec() == null || !(j.spec().contains("\"migProfile\"") || j.spec().contains("\"gpuMilli\""))) return WHOLE;
            JobSpec spec = MomentReader.spec(j);
            GpuShape per = spec.perReplica();
            if (per == null || (per.migProfile() == null && per.gpuMilli() == null)) return WHOLE;
            return new Ask(spec.replicaCount(), per.migProfile(), per.gpuMilli());
        }
    }

    /**
     * mode: the planner that made this plan (heuristic, pooled, or cpsat when the full mode's plan was adopted); groups: the
     * node-pool groups it planned apart (empty: one joint plan); cpSatGain: how much a CP-SAT plan's objective beat the
     * heuristic's on the same moment (null for other modes); fullMode: the latest CP-SAT run, adopted or not (null before one).
     */
    public record PlanView(@JsonSerialize(using = ApiTime.Seconds.class) long plannedAt, long stepSeconds, int horizonSteps, List<String> nodes, int totalGpus, int busyGpus,
                           double utilization, double decisionMillis, String mode, List<String> groups, Double cpSatGain, FullMode.Run fullMode,
                           List<Block> running, List<Waiting> pending, Map<String, Integer> inferenceReservedGpus, List<String> nodesHeldForWideJob) {
    }

    @Inject
    ServiceClock clock;
    @Inject
    PlanStore plans;
    @Inject
    FullMode fullMode;
    @Inject
    JobStore jobs;
    @Inject
    StartOutlook outlook;
    @Inject
    Planner planner;
    @Inject
    Caller caller;

    /** What a plan asked for with POST did: when it planned, how many jobs it started and preempted, the job rows it wrote. */
    public record Planned(@JsonSerialize(using = ApiTime.Seconds.class) long plannedAt, int started, int preempted, int jobRowsWritten) {
    }

    /**
     * Plans now, on this replica if it leads, and answers what the plan did. On a virtual clock nothing else makes plans:
     * a driver such as ./horizon demo moves the clock (POST /api/v1/clock) and then asks for one.
     */
    @POST
    public Planned planNow() {
        caller.requireAdmin("asking for a plan");
        Planner.PlanSnapshot p = planner.planNow();
        if (p == null) throw new ApiException(503, "this replica does not lead and no plan was made yet; ask the leader (GET /api/leader)");
        return new Planned(p.now(), p.started(), p.preempted(), p.jobRowsWritten());
    }

    @GET
    public PlanView current() {
        Planner.PlanSnapshot p = plans.current()
                .orElseThrow(() -> new ApiException(503, "no replica has planned yet; the leader plans within a second of starting, retry then"));
        List<Block> running = new ArrayList<>();
        List<Waiting> pending = new ArrayList<>();
        long now = clock.seconds();
        for (JobRow j : jobs.active()) {
            Long left = p.estimatedSecondsLeft().get(j.id());
            // other teams' work shows as GPUs held or asked for, without its name or the planner's words about it
            boolean own = caller.seesTeam(j.team());
            if (j.state() == JobState.RUNNING) {
                running.add(new Block(j.id(), own ? j.name() : null, j.team(), j.jobClass(), j.placement(), j.fill(), j.startedAt(),
                        left == null ? null : p.now() + left));
            } else {
                StartOutlook.Band band = outlook.band(j, now);
                Ask ask = Ask.of(j);
                pending.add(new Waiting(j.id(), own ? j.name() : null, j.team(), j.jobClass(), j.gpus(), own ? j.rule() : null,
                        own ? WaitReasons.shown(j.reason(), j.plannedStart(), now) : null,
                        j.queueRank(), j.plannedStart(), left, band == null ? null : band.p50At(), band == null ? null : band.p90At(),
                        own && band != null ? band.note() : null, band == null ? null : band.queueAloneP50At(), band == null ? null : band.queueAloneP90At(),
                        ask.replicas(), ask.migProfile(), ask.gpuMilli(), j.hold() == null ? null : j.hold().at()));
            }
        }
        pending.sort(java.util.Comparator.comparing(Waiting::queuePosition, java.util.Comparator.nullsLast(Integer::compare)));
        return new PlanView(p.now(), p.stepSeconds(), p.horizonSteps(), p.nodeNames(), p.totalGpus(), p.busyGpus(),
                p.totalGpus() == 0 ? 0 : (double) p.busyGpus() / p.totalGpus(), p.decisionMillis(), p.mode(), p.groups(), p.cpSatGain(),
                fullMode.last(), running, pending,
                p.inferenceReservedGpus(), p.nodesHeldForWideJob());
    }

    /** Utilization and inference demand as the last plan of each minute left them, up to a day of minutes, oldest first: the web view's chart. */
    @GET
    @Path("/history")
    public List<PlanHistory.Point> history() {
        return plans.history();
    }
}
