package dev.horizon.service.planning;

import dev.horizon.allocator.Cluster;
import dev.horizon.allocator.Decision;
import dev.horizon.allocator.GpuNode;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.Occupancy;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.SliceRequest;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.api.Contract;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.service.fractional.SlicePlanning;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.leadership.NotLeaderException;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.store.Db;
import dev.horizon.service.teams.TeamStore;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The planning loop: every step, and shortly after each event (arrival, cancel, completion, node or
 * GPU change), builds a PlanningContext from the store, asks Horizon's policy for a decision and
 * commits it in one transaction. Plans run one at a time on one thread, and bursts of events within
 * the debounce window share one plan. Applying a decision is idempotent: a plan with nothing new to
 * decide writes nothing.
 */
@Singleton
public class Planner {
    private static final Logger LOG = Logger.getLogger(Planner.class);
    private static final long MIN_ESTIMATE_SECONDS = 60;

    @Inject
    Db db;
    @Inject
    JobStore jobs;
    @Inject
    NodeStore nodes;
    @Inject
    TeamStore teams;
    @Inject
    InferenceStore inference;
    @Inject
    PlannerMetrics metrics;
    @Inject
    OwedDelivered owed;
    @Inject
    PlanHistory history;
    @Inject
    Leadership leadership;
    @Inject
    SlicePlanning slices;
    @ConfigProperty(name = "horizon.planner.step-seconds")
    long stepSeconds;
    @ConfigProperty(name = "horizon.planner.horizon-steps")
    int horizonSteps;
    @ConfigProperty(name = "horizon.planner.debounce-millis")
    long debounceMillis;

    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "horizon-planner");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean requested = new AtomicBoolean();
    private final AtomicReference<PlanSnapshot> last = new AtomicReference<>();
    /** The epoch in which every running job's placement was last confirmed; a new leader confirms them in its first commit. */
    private long confirmedEpoch;

    /**
     * What the last plan committed, for /api/v1/plan and the web view. estimatedSecondsLeft: per active job, its
     * estimated remaining run (running) or whole run (waiting). inferenceReservedGpus: per inference service, the GPUs
     * the plan keeps for it now (its forecast with headroom, or what it holds if more).
     */
    public record PlanSnapshot(long now, long stepSeconds, int horizonSteps, List<String> nodeNames, int totalGpus, int busyGpus,
                               double decisionMillis, int started, int preempted, Map<String, Long> estimatedSecondsLeft,
                               Map<String, Integer> inferenceReservedGpus) {
    }

    void start(@Observes @Priority(20) StartupEvent event) {
        loop.scheduleAtFixedRate(this::runLogged, 0, stepSeconds, TimeUnit.SECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        loop.shutdownNow();
    }

    /** A new leader plans at once: what the old one left half done is picked up from the store. */
    void leadershipChanged(@Observes Leadership.Change change) {
        if (change.leading()) requestPlan();
    }

    void followerAsked(@Observes Leadership.PlanRequest request) {
        requestPlan();
    }

    /** Asks for a plan soon; requests inside the debounce window are answered by one plan. */
    public void requestPlan() {
        if (requested.compareAndSet(false, true)) loop.schedule(this::runLogged, debounceMillis, TimeUnit.MILLISECONDS);
    }

    public boolean hasRun() {
        return last.get() != null;
    }

    public PlanSnapshot lastPlan() {
        return last.get();
    }

    private void runLogged() {
        requested.set(false);
        try {
            planOnce();
        } catch (NotLeaderException e) {
            LOG.warnf("plan discarded, nothing of it committed: %s", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("planning failed; the next event or step retries", e);
        }
    }

    /**
     * Plans and commits once, now, and waits for it. It runs on the loop's thread like every plan, so
     * plans never overlap and the allocator is only ever called from one thread.
     */
    public PlanSnapshot planNow() {
        try {
            return loop.submit(this::planOnce).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a plan", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("planning failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    private PlanSnapshot planOnce() {
        // only the leader plans; a follower passes the request on, so what it accepted is planned soon
        long epoch = leadership.epoch();
        if (epoch == 0) {
            leadership.forwardPlanRequest();
            return last.get();
        }
        long now = System.currentTimeMillis() / 1000;
        List<Node> usable = nodes.planned();
        List<JobRow> active = jobs.active();
        List<Change> changes = new ArrayList<>();
        PlanSnapshot snapshot;
        if (usable.isEmpty()) {
            for (JobRow j : active) {
                if (j.state() == JobState.RUNNING) changes.add(Change.displaced(j, "its node is no longer in the cluster"));
                else changes.add(Change.wait(j, "no-nodes", "no GPU nodes are registered: start an agent or declare horizon.nodes", null, null));
            }
            snapshot = new PlanSnapshot(now, stepSeconds, horizonSteps, List.of(), 0, 0, 0, 0, 0, Map.of(), Map.of());
        } else {
            snapshot = plan(now, usable, active, changes);
        }
        int written = commit(changes, epoch);
        metrics.record(snapshot, changes);
        owed.refresh(now, snapshot.totalGpus());
        history.record(snapshot, active, changes);
        last.set(snapshot);
        // a start, preemption or displacement changes what the next plan sees (freed GPUs, fair share, jobs waiting again
        // that this plan took off a lost node but did not place), so plan again
        if (written > 0 && (snapshot.started() > 0 || changes.stream().anyMatch(Change::preempts))) requestPlan();
        return snapshot;
    }

    private PlanSnapshot plan(long now, List<Node> usable, List<JobRow> active, List<Change> changes) {
        List<GpuNode> gpuNodes = usable.stream().map(n -> new GpuNode(n.name(), n.gpuModel(), n.gpus().size(), n.gpuMemoryMiB(), n.nvlinkDomain()))
                .toList();
        Cluster cluster = new Cluster(gpuNodes);
        Map<String, Integer> nodeIndex = new HashMap<>();
        for (int i = 0; i < gpuNodes.size(); i++) nodeIndex.put(gpuNodes.get(i).name(), i);
        TeamWeights weights = new TeamWeights(teams.all(), jobs.ranSince(now - TeamWeights.WINDOW_SECONDS), now,
                (double) cluster.totalGpus() * TeamWeights.WINDOW_SECONDS);
        DurationEstimator estimator = jobs.durationEstimator();

        Occupancy occupancy = new Occupancy(cluster);
        for (int i = 0; i < usable.size(); i++) {
            if (usable.get(i).drained()) occupancy.drain(i);
        }
        SlicePlanning.Pools pools = slices.prepare(usable, occupancy, System.currentTimeMillis());
        Map<String, Long> secondsLeft = new HashMap<>();
        List<RunningJob> running = new ArrayList<>();
        List<PendingJob> pending = new ArrayList<>();
        for (JobRow j : active) {
            JobSpec spec = spec(j);
            Contract contract = spec.contractOrDefault();
            double weight = weights.jobWeight(j.team(), j.priority());
            long estimate = estimator.estimate(j.team(), j.jobClass(), spec.durationEstimateSeconds());
            if (j.state() == JobState.RUNNING) {
                Placement p = j.placement() == null ? null : Placements.parse(j.placement(), cluster, nodeIndex);
                if (p == null || !occupancy.isFree(p)) {
                    changes.add(Change.displaced(j, "its node left the cluster or lost GPUs (" + j.placement() + ")"));
                    continue;
                }
                String lost = lostGpu(p, usable);
                if (lost != null) {
                    // its processes died with the GPU; the node is drained, so it is placed elsewhere
                    changes.add(Change.displaced(j, "GPU " + lost + " fell off the bus (" + j.placement() + ")"));
                    continue;
                }
                occupancy.occupy(p);
                long left = DurationEstimator.remaining(estimate, now - j.startedAt(), MIN_ESTIMATE_SECONDS);
                secondsLeft.put(j.id(), left);
                running.add(new RunningJob(j.id(), j.team(), j.jobClass(), weight, p.gpus(), j.submittedAt() / 1000, j.startedAt(), now + left,
                        contract, p, j.fill()));
            } else {
                secondsLeft.put(j.id(), Math.max(MIN_ESTIMATE_SECONDS, estimate));
                pending.add(new PendingJob(j.id(), j.team(), j.jobClass(), weight, j.gpus(), j.minGpus(), j.submittedAt() / 1000,
                        Math.max(MIN_ESTIMATE_SECONDS, estimate), contract, SliceRequest.of(spec.perReplica())));
            }
        }
        AtomicReference<Plan> plan = new AtomicReference<>();
        HeuristicPlanner heuristic = new HeuristicPlanner();
        // the same policy as new HorizonPolicy(), keeping the plan's start steps to report planned starts
        HorizonPolicy policy = new HorizonPolicy("horizon", 0.99, 8.0, problem -> {
            Plan p = heuristic.plan(problem);
            plan.set(p);
            return p;
        });
        Map<String, PlanningContext.ServiceView> services = serviceViews();
        Map<String, Integer> reserved = new HashMap<>();
        services.forEach((name, v) -> reserved.put(name, Math.max(v.heldGpus(), HorizonPolicy.reservationPath(v, horizonSteps)[0])));
        PlanningContext ctx = new PlanningContext(now, stepSeconds, horizonSteps, cluster, occupancy.copy(), running, pending, services);
        long started = System.nanoTime();
        Decision decision = policy.decide(ctx);
        double millis = (System.nanoTime() - started) / 1e6;
        validate(decision, running, pending);

        Map<String, JobRow> rows = new HashMap<>();
        active.forEach(j -> rows.put(j.id(), j));
        // counted from the placements, not from free GPUs: a drained node's idle GPUs are neither free nor busy;
        // a GPU shared by slices counts once
        Map<String, Placement> holding = new HashMap<>();
        running.forEach(r -> holding.put(r.id(), r.placement()));
        for (String id : decision.preemptions()) {
            Placement freed = holding.remove(id);
            occupancy.release(freed);
            changes.add(Change.preempted(rows.get(id), "preempted at " + java.time.Instant.ofEpochSecond(now)
                    + " for higher-value work: its contract allowed it (resumable, past its minimum runtime, or running as fill)"));
        }
        for (String id : decision.promotions()) changes.add(Change.promoted(rows.get(id)));
        Set<String> startedIds = new HashSet<>();
        for (Decision.Start s : decision.starts()) {
            occupancy.occupy(s.placement());
            holding.put(s.jobId(), s.placement());
            startedIds.add(s.jobId());
            changes.add(Change.start(rows.get(s.jobId()), s.placement().describe(cluster), s.fill(), now));
        }
        slices.apply(pools, decision, occupancy, usable, java.time.Instant.ofEpochSecond(now));
        List<PendingJob> order = new ArrayList<>(pending);
        order.sort(HorizonPolicy.VALUE_ORDER);
        long stepStart = now - now % stepSeconds;
        int rank = 0;
        for (PendingJob j : order) {
            if (startedIds.contains(j.id())) continue;
            rank++;
            Integer s = plan.get() == null ? null : plan.get().startStep().get(j.id());
            String rule = s == null ? "no-room-in-horizon" : s > 0 ? "planned-start" : "fragmented";
            Long plannedStart = s == null ? null : Math.max(now, stepStart + s * stepSeconds);
            String reason = decision.waitReasons().getOrDefault(j.id(), "waiting for the next plan");
            changes.add(Change.wait(rows.get(j.id()), rule, reason, rank, plannedStart));
        }
        Set<Long> busy = new HashSet<>();
        for (Placement p : holding.values()) {
            for (Placement.Slice sl : p.slices()) for (int g = sl.firstGpu(); g < sl.firstGpu() + sl.count(); g++) busy.add(((long) sl.node() << 16) | g);
        }
        return new PlanSnapshot(now, stepSeconds, horizonSteps, gpuNodes.stream().map(GpuNode::name).toList(), cluster.totalGpus(),
                busy.size(), millis, decision.starts().size(), decision.preemptions().size(), secondsLeft, reserved);
    }

    /** The first GPU of the placement its agent reported lost ("uuid on node"), null when none is. */
    private static String lostGpu(Placement p, List<Node> usable) {
        for (Placement.Slice s : p.slices()) {
            Node node = usable.get(s.node());
            for (int i = s.firstGpu(); i < s.firstGpu() + s.count(); i++) {
                Gpu gpu = node.gpus().get(i);
                if (Node.LOST.equals(gpu.health())) return gpu.uuid() + " on " + node.name();
            }
        }
        return null;
    }

    /**
     * Each inference service with its forecast over the horizon. Its held GPUs are what its agents last reported
     * serving (0 until they do); they are also its standing reservation, since nothing else reserves for it.
     */
    private Map<String, PlanningContext.ServiceView> serviceViews() {
        Map<String, PlanningContext.ServiceView> views = new HashMap<>();
        for (InferenceStore.Row row : inference.all()) {
            InferenceStore.Demand d = inference.demand(row.service().name());
            views.put(row.service().name(), new PlanningContext.ServiceView(row.service(), row.heldGpus(), row.heldGpus(),
                    d.forecaster().forecast(horizonSteps), (int) Math.ceil(d.peak())));
        }
        return views;
    }

    /** The same hard rules the simulator checks: a decision that breaks one is refused whole, never half applied. */
    private static void validate(Decision d, List<RunningJob> running, List<PendingJob> pending) {
        Set<String> runningIds = new HashSet<>();
        running.forEach(r -> runningIds.add(r.id()));
        Map<String, PendingJob> waiting = new HashMap<>();
        pending.forEach(p -> waiting.put(p.id(), p));
        for (String id : d.preemptions()) {
            if (!runningIds.contains(id)) throw new IllegalStateException("the policy preempted " + id + ", which is not running");
        }
        for (Decision.Start s : d.starts()) {
            PendingJob j = waiting.get(s.jobId());
            if (j == null) throw new IllegalStateException("the policy started " + s.jobId() + ", which is not waiting");
            int g = s.placement().gpus();
            if (g > j.gpus() || g < j.minGpus()) throw new IllegalStateException("the policy gave " + j.id() + " " + g + " GPUs; it asked for " + j.gpus());
        }
    }

    static JobSpec spec(JobRow j) {
        try {
            return JobJson.mapper().readValue(j.spec(), JobSpec.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + j.id() + " holds a spec this service wrote", e);
        }
    }

    /** One row's new planning fields; written only where they differ from what is stored. */
    record Change(JobRow row, JobState state, String placement, boolean fill, Long startedAt, String rule, String reason, Integer rank,
                  Long plannedStart, String preemption) {
        static Change start(JobRow j, String placement, boolean fill, long now) {
            return new Change(j, JobState.RUNNING, placement, fill, now, null, null, null, null, j.lastPreemption());
        }

        static Change promoted(JobRow j) {
            return new Change(j, JobState.RUNNING, j.placement(), false, j.startedAt(), null, null, null, null, j.lastPreemption());
        }

        static Change preempted(JobRow j, String why) {
            return new Change(j, JobState.PENDING, null, false, null, "preempted", why, null, null, why);
        }

        static Change displaced(JobRow j, String why) {
            return new Change(j, JobState.PENDING, null, false, null, "node-lost", "taken off its GPUs because " + why
                    + "; it waits to be placed again", null, null, "node lost: " + why);
        }

        static Change wait(JobRow j, String rule, String reason, Integer rank, Long plannedStart) {
            return new Change(j, JobState.PENDING, null, false, null, rule, reason, rank, plannedStart, j.lastPreemption());
        }

        boolean preempts() {
            return row.state() == JobState.RUNNING && state == JobState.PENDING;
        }

        boolean differs() {
            JobRow r = row;
            return r.state() != state || !Objects.equals(r.placement(), placement) || r.fill() != fill || !Objects.equals(r.startedAt(), startedAt)
                    || !Objects.equals(r.rule(), rule) || !Objects.equals(r.reason(), reason) || !Objects.equals(r.queueRank(), rank)
                    || !Objects.equals(r.plannedStart(), plannedStart);
        }
    }

    private int commit(List<Change> changes, long epoch) {
        List<Change> writes = changes.stream().filter(Change::differs).toList();
        if (writes.isEmpty() && confirmedEpoch == epoch) return 0;
        // the state guard makes a plan that raced a cancel or completion lose that row instead of resurrecting it
        int written = db.inTransaction(c -> {
            // fencing: nothing is written unless this replica still leads in epoch, and no takeover can interleave
            leadership.fence(c, epoch);
            int n = 0;
            for (Change ch : writes) {
                n += Db.update(c, "UPDATE jobs SET state = ?, placement = ?, fill = ?, started_at = ?, rule = ?, reason = ?, queue_rank = ?,"
                        + " planned_start = ?, preemptions = preemptions + ?, last_preemption = ?, leader_epoch = ? WHERE id = ? AND state = ?", ps -> {
                            ps.setString(1, ch.state().name());
                            ps.setString(2, ch.placement());
                            ps.setBoolean(3, ch.fill());
                            if (ch.startedAt() == null) ps.setNull(4, Types.BIGINT);
                            else ps.setLong(4, ch.startedAt());
                            ps.setString(5, ch.rule());
                            ps.setString(6, ch.reason());
                            if (ch.rank() == null) ps.setNull(7, Types.INTEGER);
                            else ps.setInt(7, ch.rank());
                            if (ch.plannedStart() == null) ps.setNull(8, Types.BIGINT);
                            else ps.setLong(8, ch.plannedStart());
                            ps.setInt(9, ch.preempts() ? 1 : 0);
                            ps.setString(10, ch.preemption());
                            ps.setLong(11, epoch);
                            ps.setString(12, ch.row().id());
                            ps.setString(13, ch.row().state().name());
                        });
            }
            // the placements this leader keeps running are its own from now on: adapters refuse those of older epochs
            Db.update(c, "UPDATE jobs SET leader_epoch = ? WHERE state = 'RUNNING' AND leader_epoch < ?", ps -> {
                ps.setLong(1, epoch);
                ps.setLong(2, epoch);
            });
            return n;
        });
        confirmedEpoch = epoch;
        return written;
    }
}
