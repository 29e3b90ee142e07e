package dev.horizon.service.jobs;

import dev.horizon.allocator.Cluster;
import dev.horizon.allocator.GpuNode;
import dev.horizon.allocator.NodeOrder;
import dev.horizon.allocator.Occupancy;
import dev.horizon.allocator.PlacementRules;
import dev.horizon.allocator.SliceRequest;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.allocator.GpuTypes;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Where jobs enter and leave the store, whoever asks: the REST API (after it checked the caller) and a replay through
 * the service ({@code ./horizon bench --engine service}) go through the same checks, writes and plan requests.
 */
@ApplicationScoped
public class JobSubmissions {
    /** A year: an estimate beyond it is a unit mistake (milliseconds for seconds), not a real job. */
    static final long MAX_DURATION_ESTIMATE_SECONDS = 365L * 86_400;
    static final int MAX_PRIORITY = 99;

    @Inject
    ServiceClock clock;
    @Inject
    JobStore jobs;
    @Inject
    TeamStore teams;
    @Inject
    NodeStore nodes;
    @Inject
    Planner planner;

    /** Checks the job against the store, stores it as PENDING (committed before this returns) and asks for a plan. */
    public JobRow submit(JobSpec spec) {
        checkAgainstStore(spec);
        int perReplica = spec.perReplica().gpus() != null ? spec.perReplica().gpus() : 1;
        JobRow row = new JobRow(UUID.randomUUID().toString(), spec.name(), spec.team(), spec.jobClass(), spec.priorityOrDefault(),
                spec.replicaCount() * perReplica, spec.minReplicaCount() * perReplica, JobJson.write(spec), JobState.PENDING,
                clock.millis(), null, null, null, false, "submitted", "waiting for the next plan", null, null, 0, null, 0, 0);
        jobs.insert(row);
        planner.requestPlan();
        return row;
    }

    /** A running job ended (the agents' and adapters' report): its run is closed and its GPUs go back to the plan. */
    public void outcome(JobRow j, JobState state) {
        if (j.state() != JobState.RUNNING || !jobs.finish(j.id(), state, clock.seconds())) {
            throw new ApiException(409, "job " + j.id() + " is " + j.state() + ", not RUNNING; only running jobs end with an outcome");
        }
        planner.requestPlan();
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
                GpuTypes.requirePresent(spec.perReplica().gpuTypes(), cluster.stream().map(Node::gpuModel).collect(Collectors.toSet()));
            } catch (IllegalArgumentException e) {
                throw new ApiException(422, "no GPU in the cluster can hold the job", List.of("perReplica.gpuTypes: " + e.getMessage()));
            }
        }
        if (cluster.isEmpty()) return;
        Cluster shape = new Cluster(cluster.stream().map(n -> new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain()))
                .toList());
        if (slice != null) {
            List<String> problems = slice.problems(shape);
            if (!problems.isEmpty()) throw new ApiException(422, "no GPU in the cluster can hold the job", problems);
        } else {
            checkPlaceable(spec, shape);
        }
    }

    /**
     * Whether the job, at the narrowest width it may start with, fits on the cluster when every GPU is free, by the
     * allocator's own placement rules: a job that fits nowhere even then would wait for good, so it is refused now,
     * naming topology when only its topology stands in the way, else replicas.
     */
    private static void checkPlaceable(JobSpec spec, Cluster cluster) {
        PlacementRules rules = PlacementRules.of(spec);
        int gpus = spec.minReplicaCount() * spec.perReplica().gpus();
        Occupancy empty = new Occupancy(cluster);
        if (empty.findBlock(gpus, rules, NodeOrder.BEST_FIT) != null) return;
        int largest = cluster.nodes().stream().filter(n -> rules.accepts(n.gpuModel())).mapToInt(GpuNode::gpus).max().orElse(0);
        if (rules.topology() != PlacementRules.Topology.ANY && empty.findBlock(gpus, rules.withTopology(PlacementRules.Topology.ANY), NodeOrder.BEST_FIT) != null) {
            throw new ApiException(422, "no node or NVLink domain of the cluster can ever hold the job", List.of("topology '" + rules.topology().json()
                    + "': no " + (rules.topology() == PlacementRules.Topology.SAME_NODE ? "node" : "NVLink domain") + " holds " + gpus
                    + " GPUs of the models the job accepts (the largest node has " + largest + "); use fewer replicas, or topology 'any'"));
        }
        throw new ApiException(422, "no node of the cluster can ever hold the job", List.of("replicas: " + spec.minReplicaCount() + " x perReplica.gpus "
                + spec.perReplica().gpus() + " cannot be placed even on an empty cluster (each replica needs " + spec.perReplica().gpus()
                + " GPUs on one node; the largest node of an accepted model has " + largest + "); lower perReplica.gpus or replicas"));
    }

}
