package dev.horizon.service.planning;

import dev.horizon.allocator.placement.Feasibility;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.RunSegments;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.leadership.NotLeaderException;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodePlatform;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlanRequests;
import dev.horizon.service.plans.PlannerSettings;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * The planning loop: every step, and shortly after each event (arrival, cancel, completion, node or GPU change), it
 * reads the moment from the store ({@link MomentReader}), asks the policy for a decision ({@link PlanningPolicy}),
 * turns it into writes ({@link DecisionApplier}) and commits them in one fenced transaction ({@link PlanCommitter}).
 * Plans run one at a time on one thread, and bursts of events within the debounce window share one plan. A plan with
 * nothing new to decide writes no job row. On a virtual clock only the replay asks for plans: wall time never does.
 */
@Singleton
public class Planner implements PlanRequests {
    private static final Logger LOG = Logger.getLogger(Planner.class);

    @Inject
    ServiceClock clock;
    @Inject
    JobStore jobs;
    @Inject
    NodeStore nodes;
    @Inject
    NodePlatform platform;
    @Inject
    MomentReader contexts;
    @Inject
    PlanningPolicy policy;
    @Inject
    DecisionApplier applier;
    @Inject
    PlanCommitter committer;
    @Inject
    PlannerMetrics metrics;
    @Inject
    PlanStore plans;
    @Inject
    Leadership leadership;
    @Inject
    Event<PlannedMoment> planned;
    @Inject
    PlannerSettings settings;

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
     * What the last plan committed, for /api/v1/plan and the web view; stored, so every replica reads it.
     * estimatedSecondsLeft: per active job, its estimated remaining run (running) or whole run (waiting). inferenceReservedGpus: per inference service, the GPUs the plan keeps
     * for it now. mode: the planner that made it (heuristic, pooled, cpsat: the full mode's plan, adopted); groups: the
     * node-pool groups it planned apart (empty: one joint plan); cpSatGain: for a CP-SAT plan, how much its objective
     * beats the heuristic plan on the same moment (0.02: 2% higher); jobRowsWritten: the job rows its commit changed.
     */
    public record PlanSnapshot(long now, long stepSeconds, int horizonSteps, List<String> nodeNames, int totalGpus, int busyGpus,
                               double decisionMillis, int started, int preempted, Map<String, Long> estimatedSecondsLeft,
                               Map<String, Integer> inferenceReservedGpus, String mode, List<String> groups, Double cpSatGain,
                               int jobRowsWritten, List<String> nodesHeldForWideJob) {
        public PlanSnapshot {
            // a snapshot stored before the field existed reads it as none
            nodesHeldForWideJob = nodesHeldForWideJob == null ? List.of() : List.copyOf(nodesHeldForWideJob);
        }
    }

    void start(@Observes @Priority(20) StartupEvent event) {
        if (!clock.virtual()) loop.scheduleAtFixedRate(this::runLogged, 0, settings.stepSeconds(), TimeUnit.SECONDS);
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
    @Override
    public void requestPlan() {
        if (clock.virtual()) return; // the replay plans at the moments the scenario gives
        if (requested.compareAndSet(false, true)) loop.schedule(this::runLogged, settings.debounceMillis(), TimeUnit.MILLISECONDS);
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
     * Plans and commits once, now, and waits for it. It runs on the loop's thread like every plan, so plans never overlap
     * and the allocator is only ever called from one thread.
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
        PlannerMetrics.Phases phases = metrics.phases();
        Moment m = moment();
        phases.loaded();
        if (m.input() == null) return commit(m, null, 0, null, phases, epoch);
        long t0 = System.nanoTime();
        PlanningPolicy.Outcome outcome = policy.decide(m.input().context());
        PlanSnapshot committed = commit(m, outcome, (System.nanoTime() - t0) / 1e6, null, phases, epoch);
        // a reference for the start-time bands and alternatives beside the loop; they compute on threads of their own
        planned.fire(new PlannedMoment(m.input().moment(), m.input().context(), outcome.decision(), committed.now(), m.nodesOut()));
        return committed;
    }

    /**
     * The store as one plan reads it. input is null when there are no nodes to plan on; fingerprint is what a plan made
     * on this moment depends on (nodes and their health, active jobs, their states and placements); nodesOut: the
     * registered nodes out of the plan (lost, or awaiting approval), which a job only they can hold is told of. active: the
     * jobs waiting or running, those held left out.
     */
    record Moment(long nowMillis, List<Node> usable, List<JobRow> active, PlanInput input, List<String> fingerprint, NodesOut nodesOut) {
    }

    /** Reads the moment now; any thread may (the full mode reads one to solve on). */
    Moment moment() {
        long nowMillis = clock.millis();
        List<Node> registered = nodes.registered();
        List<Node> usable = NodeStore.planned(registered).stream().map(platform::asSeen).toList();
        NodesOut nodesOut = NodesOut.of(registered);
        // a held job is left out as a cancelled one is: it never starts, and asks nothing of fair share or the bands
        List<JobRow> active = jobs.active().stream().filter(j -> j.hold() == null).toList();
        List<String> fingerprint = new ArrayList<>();
        // every GPU's health and MIG devices too: a full-mode plan solved while a GPU was being re-partitioned must not be
        // adopted once its agent reported the new instances; nor one solved before a node was drained
        usable.forEach(n -> fingerprint.add(n.name() + " " + n.health() + " " + n.drained() + " " + n.gpus().stream()
                .map(g -> g.uuid() + " " + g.health() + " " + g.migMode() + " " + g.migDevices()).toList()));
        active.forEach(j -> fingerprint.add(j.id() + " " + j.state() + " " + j.placement() + " " + j.fill()));
        PlanInput input = usable.isEmpty() ? null : contexts.build(nowMillis / 1000, usable, active, nodesOut);
        return new Moment(nowMillis, usable, active, input, fingerprint, nodesOut);
    }

    /** What Horizon's policy reserves for each inference service for the step starting now, from the stored demand. */
    public Map<String, Integer> inferenceReservation() {
        Moment m = moment();
        return m.input() == null ? Map.of() : new HorizonPolicy().inferenceReservation(m.input().context());
    }

    /**
     * Commits a decision CP-SAT made on an earlier moment, on the loop's thread like every plan, if it still holds: the
     * moment it was made on is the moment now (same nodes, same jobs in the same states and places). Returns whether it did.
     */
    boolean adopt(Moment solvedOn, PlanningPolicy.Outcome outcome, double gain) {
        try {
            return loop.submit(() -> {
                long epoch = leadership.epoch();
                if (epoch == 0) return false;
                PlannerMetrics.Phases phases = metrics.phases();
                Moment now = moment();
                phases.loaded();
                if (now.input() == null || !now.fingerprint().equals(solvedOn.fingerprint())) return false;
                commit(now, outcome, 0, gain, phases, epoch);
                return true;
            }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("adopting the full-mode plan failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** Turns the outcome into writes, commits them fenced under epoch, and records the plan. cpSatGain: null for the hot path. */
    private PlanSnapshot commit(Moment m, PlanningPolicy.Outcome outcome, double decideMillis, Double cpSatGain, PlannerMetrics.Phases phases,
                                long epoch) {
        long now = m.nowMillis() / 1000;
        PlanCommit commit;
        PlanSnapshot snapshot;
        if (m.input() == null) {
            commit = new PlanCommit(nothingToPlanOn(m.active(), now, m.nodesOut()), List.of(), PlanInput.Booking.NONE);
            phases.decided(0);
            snapshot = new PlanSnapshot(now, settings.stepSeconds(), settings.horizonSteps(), List.of(), 0, 0, 0, 0, 0, Map.of(), Map.of(), "none", List.of(), null, 0,
                    List.of());
        } else {
            PlanInput in = m.input();
            DecisionApplier.Applied applied = applier.apply(in, outcome);
            phases.decided(decideMillis);
            commit = applied.commit();
            snapshot = new PlanSnapshot(now, settings.stepSeconds(), settings.horizonSteps(), in.cluster().nodes().stream().map(n -> n.name()).toList(),
                    in.cluster().totalGpus(), applied.busyGpus(), decideMillis, outcome.decision().starts().size(),
                    outcome.decision().preemptions().size(), in.secondsLeft(), in.reserved(), outcome.mode(), outcome.groups(), cpSatGain, 0,
                    outcome.decision().nodesHeldForWideJob().stream().map(n -> in.cluster().nodes().get(n).name()).toList());
        }
        int written = committer.commit(commit, epoch, confirmedEpoch != epoch, m.nowMillis());
        confirmedEpoch = epoch;
        phases.committed();
        snapshot = withWritten(snapshot, written);
        metrics.record(snapshot, commit.writes(), m.active());
        int heldByServices = m.input() == null ? 0 : m.input().context().services().values().stream().mapToInt(v -> v.heldGpus()).sum();
        plans.record(snapshot, PlanHistory.of(snapshot, m.active(), commit.writes(), heldByServices), epoch);
        last.set(snapshot);
        // a start, preemption or displacement changes what the next plan sees (freed GPUs, fair share, jobs waiting again
        // that this plan took off a lost node but did not place), so plan again
        if (written > 0 && commit.writes().stream().anyMatch(w -> w.state() != w.before().state())) requestPlan();
        return snapshot;
    }

    /** Without nodes: running jobs lose their GPUs, and every waiting job says why it waits (the nodes out of the plan it needs named: lost, or awaiting approval). */
    private static List<JobStore.PlanWrite> nothingToPlanOn(List<JobRow> active, long now, NodesOut nodesOut) {
        List<JobStore.PlanWrite> out = new ArrayList<>();
        for (JobRow j : active) {
            if (j.state() == JobState.RUNNING) out.add(Changes.displaced(j, MomentReader.spec(j).contractOrDefault(), now, "its node is no longer in the cluster",
                    RunSegments.NODE_LOST));
            else out.add(Changes.waiting(j, "no-nodes", Objects.requireNonNullElse(nodesOut.onlyTheyHold(c -> Feasibility.problems(MomentReader.spec(j), c), List.of()),
                    "no GPU nodes are registered: start an agent or declare horizon.nodes"), null, null));
        }
        return out;
    }

    private static PlanSnapshot withWritten(PlanSnapshot s, int written) {
        return new PlanSnapshot(s.now(), s.stepSeconds(), s.horizonSteps(), s.nodeNames(), s.totalGpus(), s.busyGpus(), s.decisionMillis(),
                s.started(), s.preempted(), s.estimatedSecondsLeft(), s.inferenceReservedGpus(), s.mode(), s.groups(), s.cpSatGain(), written,
                s.nodesHeldForWideJob());
    }
}
