package dev.horizon.service.jobs;

import dev.horizon.allocator.Cluster;
import dev.horizon.allocator.GpuNode;
import dev.horizon.allocator.SliceRequest;
import dev.horizon.allocator.GpuTypes;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.service.nodes.MemoryViolations;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.security.Caller;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import dev.horizon.service.web.JsonBodies;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/** Submit, list, read, cancel and finish jobs, and say why one waits. */
@Path("/api/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {
    /** A year: an estimate beyond it is a unit mistake (milliseconds for seconds), not a real job. */
    static final long MAX_DURATION_ESTIMATE_SECONDS = 365L * 86_400;
    static final int MAX_PRIORITY = 99;
    private static final int MAX_LIST = 10_000;

    /** memoryViolations: processes on the job's GPUs that agents caught over their memory share while it ran, newest first. */
    public record Explanation(String id, JobState state, String rule, String reason, Long plannedStart, Integer queuePosition,
                              Map<String, Long> rankedAheadByTeam, Integer preemptions, String lastPreemption,
                              List<MemoryViolations.Violation> memoryViolations) {
    }

    public record Outcome(String state) {
    }

    @Inject
    Caller caller;
    @Inject
    JobStore jobs;
    @Inject
    TeamStore teams;
    @Inject
    NodeStore nodes;
    @Inject
    Planner planner;
    @Inject
    MemoryViolations violations;
    @Inject
    PlannedDevices devices;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response submit(String body) {
        if (body == null || body.isBlank()) {
            throw new ApiException(400, "invalid job", List.of("the body is empty: send one job as a JSON object (see the design's job JSON)"));
        }
        JobSpec spec = JobJson.parse(body);
        caller.requireTeam(spec.team(), "submitting a job for team '" + spec.team() + "'");
        checkAgainstStore(spec);
        int perReplica = spec.perReplica().gpus() != null ? spec.perReplica().gpus() : 1;
        JobRow row = new JobRow(UUID.randomUUID().toString(), spec.name(), spec.team(), spec.jobClass(), spec.priorityOrDefault(),
                spec.replicaCount() * perReplica, spec.minReplicaCount() * perReplica, JobJson.write(spec), JobState.PENDING,
                System.currentTimeMillis(), null, null, null, false, "submitted", "waiting for the next plan", null, null, 0, null, 0);
        jobs.insert(row);
        planner.requestPlan();
        return Response.created(URI.create("/api/v1/jobs/" + row.id())).entity(JobView.of(row)).build();
    }

    /** What only the store knows: the team exists, and the job fits in the cluster at all. */
    private void checkAgainstStore(JobSpec spec) {
        if (spec.priorityOrDefault() > MAX_PRIORITY) {
            throw new ApiException(400, "invalid job", List.of("priority must be between 0 and " + MAX_PRIORITY + " (got " + spec.priority()
                    + "); priority orders jobs inside a team, fair share orders teams"));
        }
        if (spec.durationEstimateSeconds() != null && spec.durationEstimateSeconds() > MAX_DURATION_ESTIMATE_SECONDS) {
            throw new ApiException(400, "invalid job", List.of("durationEstimateSeconds " + spec.durationEstimateSeconds()
                    + " is more than a year; give the estimate in seconds"));
        }
        if (teams.find(spec.team()).isEmpty()) {
            throw new ApiException(422, "unknown team", List.of("team '" + spec.team() + "' does not exist; use one of "
                    + teams.all().stream().map(Team::name).toList() + " or ask an admin to create it (POST /api/v1/teams)"));
        }
        List<Node> cluster = nodes.planned();
        int totalGpus = cluster.stream().mapToInt(n -> n.gpus().size()).sum();
        double asked = spec.perReplica().gpus() != null ? spec.totalGpus() : spec.replicaCount();
        if (!cluster.isEmpty() && asked > totalGpus) {
            throw new ApiException(422, "the job is larger than the cluster", List.of("replicas x perReplica: the job asks for " + (long) asked
                    + " GPUs but the cluster has " + totalGpus + " in " + cluster.size() + " nodes; lower replicas or perReplica.gpus"));
        }
        SliceRequest slice = SliceRequest.of(spec.perReplica());
        if (slice == null && spec.perReplica().gpuTypes() != null && !cluster.isEmpty()) {
            try {
                GpuTypes.requirePresent(spec.perReplica().gpuTypes(), cluster.stream().map(Node::gpuModel).collect(java.util.stream.Collectors.toSet()));
            } catch (IllegalArgumentException e) {
                throw new ApiException(422, "no GPU in the cluster can hold the job", List.of("perReplica.gpuTypes: " + e.getMessage()));
            }
        }
        if (slice != null && !cluster.isEmpty()) {
            List<String> problems = slice.problems(new Cluster(cluster.stream()
                    .map(n -> new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain())).toList()));
            if (!problems.isEmpty()) throw new ApiException(422, "no GPU in the cluster can hold the job", problems);
        }
    }

    @GET
    public List<JobView> list(@QueryParam("state") String state, @QueryParam("team") String team, @QueryParam("class") String jobClass,
                              @QueryParam("limit") Integer limit, @QueryParam("offset") Integer offset) {
        int l = limit == null ? 1000 : limit;
        int o = offset == null ? 0 : offset;
        if (l < 1 || l > MAX_LIST) throw new ApiException(400, "invalid query", List.of("limit must be between 1 and " + MAX_LIST + " (got " + l + ")"));
        if (o < 0) throw new ApiException(400, "invalid query", List.of("offset must be >= 0 (got " + o + ")"));
        JobStore.Filter f = new JobStore.Filter(state == null ? null : parse(JobState.class, "state", state), team,
                jobClass == null ? null : parse(JobClass.class, "class", jobClass), l, o);
        return jobs.list(f).stream().map(JobView::of).toList();
    }

    @GET
    @Path("/{id}")
    public JobView get(@PathParam("id") String id) {
        JobRow row = find(id);
        return JobView.of(row).withDevices(devices.of(row));
    }

    @GET
    @Path("/{id}/explanation")
    public Explanation explain(@PathParam("id") String id) {
        JobRow j = find(id);
        if (j.state() != JobState.PENDING) {
            String reason = switch (j.state()) {
                case RUNNING -> "running on " + j.placement() + (j.fill() ? " as fill on lent GPUs: preemptible when their owner needs them" : "");
                default -> "finished: " + j.state().name().toLowerCase(Locale.ROOT);
            };
            return new Explanation(j.id(), j.state(), j.state() == JobState.RUNNING ? "running" : "finished", reason, null, null, null,
                    j.preemptions(), j.lastPreemption(), violations.ofJob(j.id()));
        }
        Map<String, Long> ahead = new LinkedHashMap<>();
        if (j.queueRank() != null) {
            for (JobRow other : jobs.list(new JobStore.Filter(JobState.PENDING, null, null, MAX_LIST, 0))) {
                if (other.queueRank() != null && other.queueRank() < j.queueRank()) ahead.merge(other.team(), 1L, Long::sum);
            }
        }
        return new Explanation(j.id(), j.state(), j.rule(), j.reason(), j.plannedStart(), j.queueRank(), ahead, j.preemptions(),
                j.lastPreemption(), violations.ofJob(j.id()));
    }

    @DELETE
    @Path("/{id}")
    public JobView cancel(@PathParam("id") String id) {
        JobRow j = find(id);
        caller.requireTeam(j.team(), "cancelling a job of team '" + j.team() + "'");
        if (!jobs.finish(id, JobState.CANCELLED, System.currentTimeMillis() / 1000)) {
            throw new ApiException(409, "job " + id + " has already finished (" + find(id).state() + "); there is nothing to cancel");
        }
        planner.requestPlan();
        return JobView.of(find(id));
    }

    /** Agents and adapters report that a running job ended; its GPUs go back to the plan. */
    @POST
    @Path("/{id}/outcome")
    @Consumes(MediaType.APPLICATION_JSON)
    public JobView outcome(@PathParam("id") String id, String body) {
        caller.requireAgentOrAdmin("reporting a job's outcome");
        Outcome outcome = JsonBodies.read(body, Outcome.class, "{\"state\":\"SUCCEEDED\"}");
        JobState state = parse(JobState.class, "state", String.valueOf(outcome.state()));
        if (!state.finished() || state == JobState.CANCELLED) {
            throw new ApiException(400, "invalid outcome", List.of("state must be SUCCEEDED or FAILED (got " + outcome.state() + ")"));
        }
        JobRow j = find(id);
        if (j.state() != JobState.RUNNING || !jobs.finish(id, state, System.currentTimeMillis() / 1000)) {
            throw new ApiException(409, "job " + id + " is " + j.state() + ", not RUNNING; only running jobs end with an outcome");
        }
        planner.requestPlan();
        return JobView.of(find(id));
    }

    private JobRow find(String id) {
        return jobs.find(id).orElseThrow(() -> ApiException.notFound("job", id));
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String field, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ApiException(400, "invalid " + field, List.of(field + " '" + value + "' is not one of " + Arrays.toString(type.getEnumConstants())));
        }
    }
}
