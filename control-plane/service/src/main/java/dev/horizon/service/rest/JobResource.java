package dev.horizon.service.rest;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.allocator.eta.Ahead;
import dev.horizon.allocator.eta.Alternatives;
import dev.horizon.allocator.model.Nodelist;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.api.Limits;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.jobs.Hold;
import dev.horizon.service.jobs.IdempotencyKeys;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.JobSubmissions;
import dev.horizon.service.jobs.JobView;
import dev.horizon.service.jobs.Placements;
import dev.horizon.service.jobs.PlannedDevices;
import dev.horizon.service.jobs.StartOutlook;
import dev.horizon.service.jobs.WaitReasons;
import dev.horizon.service.leadership.LeaderForwarding;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.nodes.MemoryViolations;
import dev.horizon.service.plans.PlanRequests;
import dev.horizon.service.security.Caller;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.ApiTime;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Submit, list, read, cancel, hold, release and finish jobs, and say why one waits. */
@Path("/api/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {
    private static final int MAX_LIST = 10_000;
    private static final int DEFAULT_LIST = 1000;

    /**
     * memoryViolations: processes on the job's GPUs that agents caught over their memory share while it ran, newest first.
     * For a pending job: plannedStartAt (the plan's start), startP50At/startP90At (its band as shown now, see
     * StartOutlook.Band), bandsAt (the plan they were computed for; they may lag by one plan), startBandNote (why there is
     * no band, or what else to know of it), queueAloneP50At/queueAloneP90At (where the band has no P90: when the queue alone
     * would start it, see StartOutlook.Band), alternatives (null when not asked for) and ahead; null and empty for other states.
     * readAt: the control plane's clock when this was read, which the band is never before: a client says "in 5 min" from
     * it, not from a clock it reads apart (on a demo's virtual clock, racing through the quiet hours, that one had moved on).
     */
    public record Explanation(String id, JobState state, String rule, String reason, @JsonSerialize(using = ApiTime.Seconds.class) Long plannedStart, Integer queuePosition,
                              Map<String, Long> rankedAheadByTeam, Integer preemptions, String lastPreemption,
                              List<MemoryViolations.Violation> memoryViolations, @JsonSerialize(using = ApiTime.Seconds.class) Long plannedStartAt, @JsonSerialize(using = ApiTime.Seconds.class) Long startP50At, @JsonSerialize(using = ApiTime.Seconds.class) Long startP90At,
                              @JsonSerialize(using = ApiTime.Seconds.class) Long bandsAt, String startBandNote,
                              @JsonSerialize(using = ApiTime.Seconds.class) Long queueAloneP50At, @JsonSerialize(using = ApiTime.Seconds.class) Long queueAloneP90At,
                              List<Alternative> alternatives, List<AheadEntry> ahead,
                              @JsonSerialize(using = ApiTime.Seconds.class) long readAt) {
    }

    /** An alternative as the API shows it: the allocator's, with its start in the API's time format. */
    public record Alternative(String change, String field, @JsonSerialize(using = ApiTime.Seconds.class) long plannedStartAt) {
        static List<Alternative> of(List<Alternatives.Alternative> found) {
            return found == null ? null : found.stream().map(a -> new Alternative(a.change(), a.field(), a.plannedStartAt())).toList();
        }
    }

    /** Who goes first, as the API shows it: the allocator's entry, with untilAt in the API's time format. */
    public record AheadEntry(String team, String job, String service, int gpus, String reason,
                             @JsonSerialize(using = ApiTime.Seconds.class) Long untilAt) {
        static List<AheadEntry> of(List<Ahead.Entry> found) {
            return found.stream().map(e -> new AheadEntry(e.team(), e.job(), e.service(), e.gpus(), e.reason(), e.untilAt())).toList();
        }
    }

    public record Outcome(String state) {
    }

    /** What a hold or release did, in a sentence ("held", or why nothing changed), and the job as it is now. */
    public record HoldChange(String said, JobView job) {
    }

    /** The outcome that puts a running job back in the queue instead of finishing it. */
    static final String EVICTED = "EVICTED";

    @Inject
    ServiceClock clock;
    @Inject
    Caller caller;
    @Inject
    JobStore jobs;
    @Inject
    PlanRequests planner;
    @Inject
    JobSubmissions submissions;
    @Inject
    MemoryViolations violations;
    @Inject
    PlannedDevices devices;
    @Inject
    StartOutlook outlook;
    @Inject
    Leadership leadership;
    @Inject
    LeaderForwarding forwarding;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response submit(String body, @HeaderParam(IdempotencyKeys.HEADER) String idempotencyKey) {
        if (body == null || body.isBlank()) {
            throw new ApiException(400, "invalid job", List.of("the body is empty: send one job as a JSON object (see the design's job JSON)"));
        }
        JobSpec spec = JobJson.parse(body);
        caller.requireTeam(spec.team(), "submitting a job for team '" + spec.team() + "'", mine -> teamOrigin(spec, mine));
        JobSubmissions.Submitted s = idempotencyKey == null ? new JobSubmissions.Submitted(submissions.submit(spec), false)
                : submissions.submitOnce(spec, IdempotencyKeys.of(caller.tokenId(), idempotencyKey, JobJson.write(spec)));
        // a replay answers as the first request did (201, as Stripe does), with the job as it is now and a header saying so
        Response.ResponseBuilder answer = Response.created(URI.create("/api/v1/jobs/" + s.job().id())).entity(JobView.of(s.job(), clock.seconds()));
        if (s.replayed()) answer.header("Idempotent-Replayed", "true");
        return answer.build();
    }

    /**
     * Where a manifest's job got a team its submitter's token (bound to team mine) may not act for, and the fix; null when
     * the job names no namespace it came from, or a team other than that namespace. The adapters (./horizon submit and
     * translate, the controllers) take the team from the manifest's metadata.namespace when no queue names one, and a
     * manifest that names no namespace is in 'default' as kubectl would apply it: a 403 for team 'default' said nothing of
     * that.
     */
    private static String teamOrigin(JobSpec spec, String mine) {
        JobSource source = spec.source();
        if (source == null || source.namespace() == null || !source.namespace().equals(spec.team())) return null;
        String kind = source.kind() == null ? "manifest" : source.kind();
        return " (taken from the " + kind + "'s metadata.namespace" + ("default".equals(spec.team()) ? ", 'default' when the manifest gives none" : "")
                + "): pass --team " + mine + " to ./horizon submit (or set the job's team), or set metadata.namespace, or a queue label such as"
                + " kueue.x-k8s.io/queue-name, to a team this token may act for";
    }

    /**
     * Jobs in submission order, a page at a time: when more match, the answer's Link header (rel="next") and
     * Horizon-Next-Cursor give the cursor of the next page, which starts after this page's last job however many jobs
     * were submitted or finished since. name finds jobs by name within the caller's own team (any team for admins):
     * names are shown only to their team, so they are looked up only there.
     */
    @GET
    public Response list(@QueryParam("state") String state, @QueryParam("team") String team, @QueryParam("class") String jobClass,
                         @QueryParam("name") String name, @QueryParam("limit") String limit, @QueryParam("cursor") String cursor,
                         @QueryParam("offset") String offset, @Context UriInfo uri) {
        int l = QueryParams.number("limit", limit, DEFAULT_LIST, 1, MAX_LIST);
        if (offset != null) {
            throw new ApiException(400, "invalid query", List.of("offset is not supported: page with cursor, the value of the Horizon-Next-Cursor"
                    + " header (or the Link rel=\"next\") of the page before"));
        }
        String scope = team;
        if (name != null && !caller.seesAllTeams()) {
            // names show only to their own team: a submitter finds its team's jobs by name, other tokens none
            if (caller.team() == null || (team != null && !team.equals(caller.team()))) return Response.ok(List.of()).build();
            scope = caller.team();
        }
        JobStore.Filter f = new JobStore.Filter(state == null ? null : parse(JobState.class, "state", state), scope,
                jobClass == null ? null : parse(JobClass.class, "class", jobClass), name, l + 1, cursor == null ? null : JobCursor.decode(cursor));
        List<JobRow> rows = jobs.list(f);
        List<JobRow> page = rows.subList(0, Math.min(l, rows.size()));
        long now = clock.seconds();
        Response.ResponseBuilder answer = Response.ok(page.stream().map(j -> JobView.visibleTo(caller, j, now).withBand(outlook, j, now)).toList());
        if (rows.size() > l) {
            JobRow last = page.get(page.size() - 1);
            String next = JobCursor.encode(new JobStore.Position(last.submittedAt(), last.id()));
            answer.header(JobCursor.HEADER, next).link(uri.getRequestUriBuilder().replaceQueryParam("cursor", next).build(), "next");
        }
        return answer.build();
    }

    @GET
    @Path("/{id}")
    public JobView get(@PathParam("id") String id) {
        JobRow j = find(id);
        caller.requireSeesTeam(j.team(), "job " + id);
        long now = clock.seconds();
        return JobView.of(j, now).withDevices(devices.of(j)).withBand(outlook, j, now);
    }

    /**
     * Why the job is where it is. A waiting job's alternatives and who is ahead are re-planned in the leader's memory:
     * a follower passes the question on to the leader and relays its answer, and answers itself (with the band the
     * leader saved, without alternatives) only while no leader answers (an election, or forwarding turned off), so a
     * client behind a load balancer gets them from whichever replica it reaches.
     */
    @GET
    @Path("/{id}/explanation")
    public Response explain(@PathParam("id") String id, @QueryParam("alternatives") String alternatives, @Context UriInfo uri,
                            @Context HttpHeaders headers) {
        boolean withAlternatives = QueryParams.bool("alternatives", alternatives, true);
        JobRow j = find(id);
        caller.requireSeesTeam(j.team(), "job " + id);
        if (j.state() == JobState.PENDING && !leadership.leading()) {
            Response relayed = forwarding.toLeader("a waiting job's start-time band", "GET", uri, headers, null);
            if (relayed.getStatus() == Response.Status.OK.getStatusCode()) return relayed;
        }
        return Response.ok(explanation(j, withAlternatives)).build();
    }

    private Explanation explanation(JobRow j, boolean withAlternatives) {
        long now = clock.seconds();
        if (j.state() != JobState.PENDING) {
            String reason = switch (j.state()) {
                case RUNNING -> "running on " + Nodelist.of(j.placement()) + (j.fill() ? " as fill on lent GPUs: preemptible when their owner needs them" : "");
                default -> "finished: " + j.state().name().toLowerCase(Locale.ROOT);
            };
            return new Explanation(j.id(), j.state(), j.state() == JobState.RUNNING ? "running" : "finished", reason, null, null, null,
                    j.preemptions(), j.lastPreemption(), violations.ofJob(j.id()), null, null, null, null, null, null, null, List.of(), List.of(), now);
        }
        Map<String, Long> ahead = j.queueRank() == null ? Map.of() : jobs.pendingAheadByTeam(j.queueRank());
        StartOutlook.Band band = outlook.band(j, now);
        // a held job is in no plan: a plan made before its hold would still offer changes to it and name who is ahead
        boolean planned = j.hold() == null;
        return new Explanation(j.id(), j.state(), j.rule(), WaitReasons.shown(j.reason(), j.plannedStart(), now), j.plannedStart(),
                j.queueRank(), ahead, j.preemptions(), j.lastPreemption(), violations.ofJob(j.id()), j.plannedStart(),
                band == null ? null : band.p50At(), band == null ? null : band.p90At(), band == null ? null : band.bandsAt(),
                band == null ? null : band.note(), band == null ? null : band.queueAloneP50At(), band == null ? null : band.queueAloneP90At(),
                withAlternatives ? (planned ? Alternative.of(outlook.alternatives(j.id())) : List.of()) : null,
                planned ? AheadEntry.of(outlook.ahead(j.id())) : List.of(),
                now);
    }

    @DELETE
    @Path("/{id}")
    public JobView cancel(@PathParam("id") String id) {
        JobRow j = find(id);
        caller.requireTeam(j.team(), "cancelling a job of team '" + j.team() + "'");
        if (!jobs.finish(id, JobState.CANCELLED, clock.seconds())) {
            throw new ApiException(409, "job " + id + " has already finished (" + find(id).state() + "); there is nothing to cancel");
        }
        planner.requestPlan();
        return JobView.of(find(id), clock.seconds());
    }

    /**
     * Keeps a waiting job from starting without cancelling it (Slurm's scontrol hold, a deactivated Kueue Workload), with
     * the rights cancel asks for: it stays PENDING, held by the caller, until released. A held job's hold is not an error
     * (nothing changes, and the answer says so); a job that is not waiting is a 409 saying what to do instead.
     */
    @POST
    @Path("/{id}/hold")
    public HoldChange hold(@PathParam("id") String id) {
        JobRow j = find(id);
        caller.requireTeam(j.team(), "holding a job of team '" + j.team() + "'");
        JobRow before = jobs.hold(id, new Hold(caller.who(), clock.seconds())).orElseThrow(() -> ApiException.notFound("job", id));
        if (before.hold() != null) return holdChange(id, "job " + id + " was already " + before.hold().reason(before.name()) + "; nothing changed");
        if (before.state() != JobState.PENDING) throw new ApiException(409, "job " + id + " is " + before.state() + " and only a waiting (PENDING) job can be held; "
                + (before.state() == JobState.RUNNING ? "cancel it, or wait for it to end" : "it has finished, so there is nothing to hold"));
        planner.requestPlan();
        return holdChange(id, "held job " + id);
    }

    /** Lets a held job start: the next plan places it as any waiting job. Releasing a job not held is not an error. */
    @POST
    @Path("/{id}/release")
    public HoldChange release(@PathParam("id") String id) {
        JobRow j = find(id);
        caller.requireTeam(j.team(), "releasing a job of team '" + j.team() + "'");
        JobRow before = jobs.release(id).orElseThrow(() -> ApiException.notFound("job", id));
        if (before.hold() == null) return holdChange(id, "job " + id + " was not held (" + before.state() + "); nothing changed");
        planner.requestPlan();
        return holdChange(id, "released job " + id + ", held by " + before.hold().by() + " since " + Instant.ofEpochSecond(before.hold().at()));
    }

    private HoldChange holdChange(String id, String said) {
        caller.noteForAudit(said);
        return new HoldChange(said, JobView.of(find(id), clock.seconds()));
    }

    /**
     * Agents and adapters report that a running job ended (SUCCEEDED, FAILED), or was evicted from its GPUs by something
     * other than the plan (EVICTED: it waits to be placed again); its GPUs go back to the plan.
     */
    @POST
    @Path("/{id}/outcome")
    @Consumes(MediaType.APPLICATION_JSON)
    public JobView outcome(@PathParam("id") String id, String body) {
        caller.requireAgentOrAdmin("reporting a job's outcome");
        Outcome outcome = JsonBodies.read(body, Outcome.class, "{\"state\":\"SUCCEEDED\"}");
        if (EVICTED.equalsIgnoreCase(String.valueOf(outcome.state()))) {
            submissions.evicted(ownRun(id));
            return JobView.visibleTo(caller, find(id), clock.seconds());
        }
        JobState state = parse(JobState.class, "state", String.valueOf(outcome.state()));
        if (!state.finished() || state == JobState.CANCELLED) {
            throw new ApiException(400, "invalid outcome", List.of("state must be SUCCEEDED, FAILED or EVICTED (got " + Limits.quote(outcome.state()) + ")"));
        }
        submissions.outcome(ownRun(id), state);
        return JobView.visibleTo(caller, find(id), clock.seconds());
    }

    /** The job, when the caller may report on its run: admins on any, a node credential only on jobs placed on its node. */
    private JobRow ownRun(String id) {
        JobRow j = find(id);
        caller.requireOwnNode("reporting a job's outcome", node -> j.placement() != null && Placements.usesNode(j.placement(), node),
                "job " + id + " (placed on " + Nodelist.of(j.placement()) + ")");
        return j;
    }

    private JobRow find(String id) {
        return jobs.find(id).orElseThrow(() -> ApiException.notFound("job", id));
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String field, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ApiException(400, "invalid " + field, List.of(field + " " + Limits.quote(value) + " is not one of " + Arrays.toString(type.getEnumConstants())));
        }
    }
}
