package dev.horizon.allocator.actions;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.fairshare.FairShareView;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One decision in the making, shared by the actions that make it in turn (KAI-Scheduler's session): the moment as the
 * policy was given it, the same moment re-weighted by fair share, the cluster's occupancy that each action changes as it
 * starts and preempts, and the decision they write.
 */
public final class Session {
    private final PlanningContext given;
    private PlanningContext ctx;
    private final Set<String> fillOnly;
    private final Set<String> staysFill;
    private final Decision decision = new Decision();
    /** Nodes held for a wide job in this decision ({@code WideHold}); null: none. */
    private boolean[] fillOnlyNodes;
    /** The waiting jobs by id, while nodes are held. */
    private Map<String, PendingJob> waitingById;
    /** The plan this decision commits the first step of ({@code Allocate}); null until it is made. */
    private Plan plan;
    /** Each team's owed GPUs as the wait reasons say them, formatted once per decision (a format per waiting job was a third of a future's time). */
    private final Map<String, String> owedSaid = new HashMap<>();
    /** How the budgets age waiting work (null without budgets). */
    private final FairShareWeights.Aging aging;
    /** The moment's waiting jobs as given, by id, once a wait reason asks how one ranks after its wait. */
    private Map<String, PendingJob> givenWaiting;

    private Session(PlanningContext given, PlanningContext weighted, Set<String> fillOnly, Set<String> staysFill, FairShareWeights.Aging aging) {
        this.given = given;
        this.ctx = weighted;
        this.fillOnly = fillOnly;
        this.staysFill = staysFill;
        this.aging = aging;
    }

    /** Opens a session on a moment; under fair share its jobs are re-weighted first ({@link FairShareWeights}). */
    public static Session open(PlanningContext given) {
        if (given.fairShare() == null) return new Session(given, given, Set.of(), Set.of(), null);
        FairShareWeights.Weighted weighted = FairShareWeights.apply(given);
        return new Session(given, weighted.context(), weighted.fillOnly(), weighted.unallocatedRunning(), weighted.aging());
    }

    /**
     * Where the budgets age waiting work, how this waiting job ranks in its team's budget after its wait (null where they
     * do not): for its wait reason, so read only when a reason is, and the moment's waiting jobs indexed once then.
     */
    public synchronized FairShareWeights.AgedRank agedRank(String jobId) {
        if (aging == null || aging.doublingSeconds() == 0) return null;
        if (givenWaiting == null) {
            givenWaiting = new HashMap<>();
            for (PendingJob j : given.pending()) givenWaiting.put(j.id(), j);
        }
        PendingJob j = givenWaiting.get(jobId);
        return j == null ? null : aging.rankOf(j, given.now());
    }

    /** The moment with the weights the actions plan by. */
    public PlanningContext context() {
        return ctx;
    }

    /** From now on these are the running jobs (an action took the others off their GPUs). */
    public void keepRunning(List<RunningJob> staying) {
        if (staying.size() != ctx.running().size()) ctx = ctx.withJobs(staying, ctx.pending());
    }

    public Occupancy occupancy() {
        return ctx.occupancy();
    }

    public Decision decision() {
        return decision;
    }

    public long now() {
        return ctx.now();
    }

    /** Fair share as given (null without budgets). */
    public FairShareView fairShare() {
        return given.fairShare();
    }

    public boolean underFairShare() {
        return given.fairShare() != null;
    }

    /** A waiting job beyond its team's owed share: it may only borrow idle GPUs as unallocated fill. */
    public boolean onlyAsFill(String jobId) {
        return fillOnly.contains(jobId);
    }

    /** A running job beyond its team's owed share: it stays fill however much room the plan has. */
    public boolean staysFill(String jobId) {
        return staysFill.contains(jobId);
    }

    /** GPUs the team is owed now, for wait reasons. */
    public String owedOf(String team) {
        return owedSaid.computeIfAbsent(team, t -> String.format("%.1f", given.fairShare().owedNow().getOrDefault(t, 0.0)));
    }

    /**
     * Whether protected work may take these GPUs now: with the ones it adds, protected work holds no more than the
     * cluster less what inference claims (its reservation now, or more while it holds more). Protected work is what the
     * cluster runs protected (running work fair share re-weights to fill is protected until it is preempted; the
     * simulator's audit counts it so), promoted fill, and the protected starts of this decision; a GPU counts once
     * however many shares it holds.
     */
    public boolean protectedRoomFor(Placement placement) {
        return protectedRoom().admits(placement);
    }

    /**
     * {@link #protectedRoomFor}'s count as of now, for a caller that asks it of many placements and tells it each one it
     * promotes: on a large cluster, counting thousands of running jobs' GPUs again for every fill job was a tenth of a
     * decision.
     */
    public ProtectedRoom protectedRoom() {
        int room = ctx.cluster().totalGpus();
        for (PlanningContext.ServiceView v : ctx.services().values()) {
            room -= Math.max(InferenceReservation.path(v, ctx.horizonSteps())[0], Math.max(v.reservedGpus(), v.heldGpus()));
        }
        Set<GpuRef> held = new HashSet<>();
        Set<String> promoted = new HashSet<>(decision.promotions());
        Set<String> preempted = new HashSet<>(decision.preemptions());
        for (RunningJob r : given.running()) {
            boolean protectedNow = !r.fill() || promoted.contains(r.id());
            if (protectedNow && !preempted.contains(r.id())) held.addAll(r.placement().gpus());
        }
        for (Decision.Start s : decision.starts()) if (!s.fill()) held.addAll(s.placement().gpus());
        return new ProtectedRoom(room, held, preempted);
    }

    /** The GPUs protected work holds, and the most it may hold. */
    public static final class ProtectedRoom {
        private final int room;
        private final Set<GpuRef> held;
        private final Set<String> preempted;

        private ProtectedRoom(int room, Set<GpuRef> held, Set<String> preempted) {
            this.room = room;
            this.held = held;
            this.preempted = preempted;
        }

        /** Whether protected work may take these GPUs too (it may always take GPUs it holds already). */
        public boolean admits(Placement placement) {
            Set<GpuRef> fresh = new HashSet<>();
            for (GpuRef g : placement.gpus()) if (!held.contains(g)) fresh.add(g);
            return fresh.isEmpty() || held.size() + fresh.size() <= room;
        }

        /** A running job was promoted from fill: its GPUs count as protected unless it is preempted in this decision. */
        public void promoted(RunningJob r) {
            if (!preempted.contains(r.id())) held.addAll(r.placement().gpus());
        }
    }

    /**
     * From now on in this decision these nodes are held for a wide job: small resumable work that starts there starts as
     * fill, and fill there is not promoted.
     */
    public void holdForWideJob(List<Integer> nodes) {
        decision.holdForWideJob(nodes);
        fillOnlyNodes = decision.nodesHeldForWideJob(ctx.cluster().nodes().size());
        waitingById = new HashMap<>();
        for (PendingJob j : ctx.pending()) waitingById.put(j.id(), j);
    }

    /** Whether the placement touches a node held for a wide job. */
    public boolean onFillOnlyNodes(Placement placement) {
        if (fillOnlyNodes == null) return false;
        for (Placement.Slice s : placement.slices()) if (fillOnlyNodes[s.node()]) return true;
        return false;
    }

    /**
     * Whether this start on held nodes must be fill: work that can resume (fill must be cheap to take back) and is
     * narrower than its node. Work as wide as a node starts as planned, so the hold moves to other nodes: as fill it was
     * the next thing the wide job took back, minutes after it started (wide-gangs seed 84: 94 restarts of jobs of 8 GPUs
     * or more against Slurm-like's 56).
     */
    private boolean heldAsFill(String jobId, Placement placement) {
        if (!onFillOnlyNodes(placement)) return false;
        PendingJob j = waitingById.get(jobId);
        return j != null && j.contract().resumable() && placement.slices().size() == 1
                && placement.gpuCount() < ctx.cluster().nodes().get(placement.slices().get(0).node()).gpus();
    }

    /** The plan the decision commits the first step of, made. */
    public void planned(Plan made) {
        plan = made;
    }

    /**
     * When the plan starts the waiting job (epoch seconds; null: not within the horizon, or no plan yet): what a price
     * weighs a start now against. It is not always what the job is told ({@link Plan#toldStep}): for a job the start-now
     * caution holds, the plan's start is the gap's next step. Priced against the later start it is told, value
     * preemption started such jobs more often, and on wide-gangs seeds 83-112 Horizon's mean over the best peer fell from
     * 1.198x to 1.188x.
     */
    public Long planStartOf(String jobId) {
        Integer s = plan == null ? null : plan.startStep().get(jobId);
        return s == null ? null : ctx.plannedStart(s);
    }

    /** Starts the job on these GPUs now: they are taken, and it no longer waits. */
    public void start(String jobId, Placement placement, boolean fill) {
        occupancy().occupy(placement);
        decision.start(jobId, placement, fill || heldAsFill(jobId, placement));
        decision.waitReasons().remove(jobId);
        decision.plannedStarts().remove(jobId);
    }
}
