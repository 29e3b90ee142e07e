package dev.horizon.service.jobs;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.placement.Feasibility;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.api.Limits;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlanRequests;
import dev.horizon.service.store.StoreException;
import dev.horizon.service.teams.Team;
import dev.horizon.service.teams.TeamStore;
import dev.horizon.service.web.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Where jobs enter and leave the store, whoever asks: the REST API (after it checked the caller) and a replay through
 * the service ({@code ./horizon bench --engine service}) go through the same checks, writes and plan requests.
 */
@ApplicationScoped
public class JobSubmissions {
    @Inject
    ServiceClock clock;
    @Inject
    JobStore jobs;
    @Inject
    TeamStore teams;
    @Inject
    NodeStore nodes;
    @Inject
    PlanRequests planner;
    @Inject
    IdempotencyKeys idempotencyKeys;

    /** Checks the job against the store, stores it as PENDING (committed before this returns) and asks for a plan. */
    public JobRow submit(JobSpec spec) {
        return submitAs(spec, UUID.randomUUID().toString());
    }

    /**
     * As {@link #submit}, under an id the caller chose: the replay keeps the scenario's ids, because the allocator breaks
     * ties between equal jobs (same value and arrival, or same start among victims) by id, and the simulator's are the
     * scenario's. Random ids made the service engine break them otherwise, differently from run to run.
     */
    public JobRow submitAs(JobSpec spec, String id) {
        checkAgainstStore(spec);
        JobRow row = pending(spec, id);
        jobs.insert(row);
        planner.requestPlan();
        return row;
    }

    /** A submission and whether it is the job an earlier request with the same Idempotency-Key made (replayed). */
    public record Submitted(JobRow job, boolean replayed) {
    }

    /**
     * As {@link #submit}, once per idempotency key: a retry with the same key and job gets the job the first request
     * made, even one racing it on another replica (the key and the job are inserted in one transaction).
     */
    public Submitted submitOnce(JobSpec spec, IdempotencyKeys.Key key) {
        Optional<Submitted> earlier = earlier(key);
        if (earlier.isPresent()) return earlier.get();
        checkAgainstStore(spec);
        JobRow row = pending(spec, UUID.randomUUID().toString());
        try {
            jobs.insertKeyed(row, key, clock.millis());
        } catch (StoreException e) {
            if (!e.duplicateKey()) throw e;
            return earlier(key).orElseThrow(() -> e);
        }
        planner.requestPlan();
        return new Submitted(row, false);
    }

    private Optional<Submitted> earlier(IdempotencyKeys.Key key) {
        return idempotencyKeys.earlierJob(key).flatMap(jobs::find).map(j -> new Submitted(j, true));
    }

    private JobRow pending(JobSpec spec, String id) {
        int perReplica = spec.perReplica().gpus() != null ? spec.perReplica().gpus() : 1;
        return JobRow.builder().id(id).name(spec.name()).team(spec.team()).jobClass(spec.jobClass()).priority(spec.priorityOrDefault())
                .gpus(spec.replicaCount() * perReplica).minGpus(spec.minReplicaCount() * perReplica).spec(JobJson.write(spec)).state(JobState.PENDING)
                .submittedAt(clock.millis()).rule("submitted").reason(WaitReasons.NEXT_PLAN).build();
    }

    /** A running job ended (the agents' and adapters' report): its run is closed and its GPUs go back to the plan. */
    public void outcome(JobRow j, JobState state) {
        if (j.state() != JobState.RUNNING || !jobs.finish(j.id(), state, clock.seconds())) {
            throw notRunning(j);
        }
        planner.requestPlan();
    }

    /** A running job was evicted from its GPUs (the agents' and adapters' report): it waits to be placed again. */
    public void evicted(JobRow j) {
        long now = clock.seconds();
        String why = "evicted at " + java.time.Instant.ofEpochSecond(now) + ": its agent reported its GPUs taken back; it waits to be placed again";
        JobSpec spec = JobJson.parse(j.spec());
        if (j.state() != JobState.RUNNING || !jobs.evict(j.id(), spec.contractOrDefault(), now, why)) throw notRunning(j);
        planner.requestPlan();
    }

    private static ApiException notRunning(JobRow j) {
        return new ApiException(409, "job " + j.id() + " is " + j.state() + ", not RUNNING; only running jobs end with an outcome");
    }

    /** What only the store knows: the team exists, and the job fits in the cluster at all. */
    private void checkAgainstStore(JobSpec spec) {
        if (teams.find(spec.team()).isEmpty()) {
            throw new ApiException(422, "unknown team", List.of("team " + Limits.quote(spec.team()) + " does not exist; use one of "
                    + teams.all().stream().map(Team::name).toList() + " or ask an admin to create it (./horizon team create NAME --share S, or POST /api/v1/teams)"));
        }
        // fair share owes GPU time to the teams at the tree's leaves only: a job of a team above them was accepted and
        // then never owed any, so it ran only as fill however large the team's share
        List<String> subTeams = teams.subTeams(spec.team());
        if (!subTeams.isEmpty()) {
            throw new ApiException(422, "team has sub-teams", List.of("team " + Limits.quote(spec.team()) + " has sub-teams " + subTeams
                    + ": fair share owes GPU time only to teams without sub-teams, so its own jobs would run only as fill on idle GPUs; submit for one of them"));
        }
        // a node out for now (its agent silent a minute, or waiting for approval) still counts: it comes back
        List<Node> cluster = nodes.registered();
        if (cluster.isEmpty()) return; // nothing registered yet: the job waits for nodes rather than being refused
        Cluster shape = new Cluster(cluster.stream().map(n -> new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain()))
                .toList());
        List<String> problems = Feasibility.problems(spec, shape);
        if (!problems.isEmpty()) throw new ApiException(422, "no node or NVLink domain of the cluster can ever hold the job", problems);
    }
}
