package dev.horizon.allocator.actions.allocate;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.FairShareWeights;
import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.actions.preempt.Preemption;
import dev.horizon.allocator.actions.preempt.Price;
import dev.horizon.allocator.actions.preempt.VictimPool;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.SlicePlacer;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Allocate: plans the protected GPU x timestep grid over the horizon and commits only the current step. Fractional work
 * beside work a GPU already holds goes first (it costs the plan no GPU); whole-GPU work the plan starts now gets its
 * block, taking it from fill where fill sits on it; every other job gets the reason it waits.
 */
public final class Allocate {
    /**
     * How many times its estimate work the plan starts now must find its GPUs free before any more valuable job planned
     * on them ({@link PlanProblem#startNowCaution}). Estimates are medians of heavy-tailed runs (on wide-gangs the mean
     * run is ten times the median), so work started in the gap before a more valuable job's planned start outlives the
     * gap more often than not, and then its minimum runtime protects it while that job waits. 8 was chosen among 4, 8
     * and 16 on wide-gangs seeds 83-112 and checked on seeds 113-136 and four fresh Philly days (docs/bench.md, stop 72).
     * Without fair share only: on the demo's day (budgets) it left the output as it was and cut the worst team's owed
     * GPU-hours from 0.89 to 0.85, since the work planned ahead there is a team's catch-up and the gap's GPUs are other
     * teams' share. Horizon's rule only: the Slurm-like baseline backfills by the estimate, as before.
     */
    static final int START_NOW_CAUTION = 8;
    private final double decayPerStep;
    private final Function<PlanProblem, Plan> planner;

    public Allocate(double decayPerStep, Function<PlanProblem, Plan> planner) {
        this.decayPerStep = decayPerStep;
        this.planner = planner;
    }

    /** Runs the action; returns the whole-GPU jobs it did not start, in value order, for the actions after it. */
    public List<PendingJob> run(Session session) {
        PlanningContext ctx = session.context();
        ProtectedGrid grid = ProtectedGrid.of(session);
        List<PendingJob> pending = new ArrayList<>(ctx.pending());
        pending.sort(Ranking.VALUE_ORDER);
        session.decision().expectWaiting(pending.size());
        SlicePlacer slicer = pending.stream().anyMatch(j -> j.slice() != null) ? new SlicePlacer(pending) : null;
        Set<String> sliced = slicesBesideHeldWork(session, pending, slicer);
        Plan plan = planner.apply(problem(ctx, grid, pending, session, sliced));
        session.planned(plan);
        session.decision().planObjective(plan.objective());
        if (plan.solver() != null) session.decision().solved(plan.solver());
        VictimPool fillPool = new VictimPool(grid.fill(), ctx.now());
        List<Integer> outNodes = nodesTakingNoWork(session);
        List<PendingJob> notStarted = new ArrayList<>();
        for (PendingJob j : pending) {
            if (sliced.contains(j.id())) continue;
            if (session.onlyAsFill(j.id())) {
                waitsAsFill(session, j, notStarted);
                continue;
            }
            Integer s = plan.startStep().get(j.id());
            Integer told = plan.toldStep(j.id());
            if (told != null) {
                session.decision().planned(j.id(), ctx.plannedStart(told));
                session.decision().waitRule(j.id(), told > 0 ? Decision.WaitRule.PLANNED_START : Decision.WaitRule.FRAGMENTED);
            }
            if (j.slice() != null) {
                // planned by the GPUs it fills; at step 0 it may open free GPUs, later it only packs beside others
                SliceStarts.apply(slicer.place(session.occupancy(), j, s != null && s == 0), j, session, true);
                continue;
            }
            if (!startIfPlannedNow(session, j, s, plan, fillPool, grid.reserved(), outNodes)) notStarted.add(j);
        }
        return notStarted;
    }

    /** Fractional jobs that fit beside work their GPUs already hold start first, in value order; others wait for the plan. */
    private static Set<String> slicesBesideHeldWork(Session session, List<PendingJob> pending, SlicePlacer slicer) {
        Set<String> sliced = new HashSet<>();
        for (PendingJob j : pending) {
            if (j.slice() == null || session.onlyAsFill(j.id())) continue;
            List<String> problems = j.slice().problems(session.context().cluster());
            if (!problems.isEmpty()) {
                session.decision().waiting(j.id(), "cannot be placed in this cluster: " + String.join("; ", problems));
                sliced.add(j.id());
                continue;
            }
            if (SliceStarts.apply(slicer.place(session.occupancy(), j, false), j, session, false)) sliced.add(j.id());
        }
        return sliced;
    }

    /**
     * The grid problem: each whole-GPU job with its rules and the nodes of models it accepts; each fractional job as the
     * whole GPUs its replicas fill when packed (as many per GPU as the tightest model that can hold its slice takes) on
     * nodes of such a model. Planned as one GPU per replica, 2 x 500 milli-GPU needed 2 GPUs of room now where it opens
     * one, so it was planned a step later at every decision and never opened a free GPU. MIG work that no GPU may be
     * re-partitioned for is left out, since it never takes a whole GPU.
     */
    private PlanProblem problem(PlanningContext ctx, ProtectedGrid grid, List<PendingJob> pending, Session session, Set<String> sliced) {
        int h = ctx.horizonSteps();
        long step = ctx.stepSeconds();
        List<PlanProblem.Job> jobs = new ArrayList<>(pending.size());
        // many jobs ask the same slice or accept the same models: each shape is sized, and its nodes found, against every
        // node once per decision, not once per job (and the jobs of one shape share one array of nodes)
        Map<SliceRequest, Integer> perGpuBySlice = new HashMap<>();
        Map<SliceRequest, Boolean> onWholeGpus = new HashMap<>();
        Map<Object, Optional<boolean[]>> nodesByShape = new HashMap<>();
        for (PendingJob j : pending) {
            if (session.onlyAsFill(j.id()) || sliced.contains(j.id())) continue;
            // MIG work no GPU may be re-partitioned for waits for an instance of the layouts as they are: counted on whole
            // GPUs, it took one from the plan's current step at every decision it waited, and work below it waited beside it
            if (j.slice() != null && j.slice().isMig()
                    && !onWholeGpus.computeIfAbsent(j.slice(), slice -> SlicePlacer.mayPartitionFor(ctx.occupancy(), slice))) continue;
            int d = (int) Math.max(1, Math.min(h, (j.estimatedRemainingSeconds() + step - 1) / step));
            // what allowedNodes reads of a job: its slice, or without one its rules
            boolean[] allowed = nodesByShape.computeIfAbsent(j.slice() == null ? j.rules() : j.slice(),
                    shape -> Optional.ofNullable(PlanProblem.allowedNodes(ctx.cluster(), j))).orElse(null);
            if (j.slice() == null) {
                jobs.add(new PlanProblem.Job(j.id(), j.weight(), j.gpus(), d, j.minGpus(), j.rules(), allowed));
                continue;
            }
            int perGpu = perGpuBySlice.computeIfAbsent(j.slice(), slice -> replicasPerGpu(ctx.cluster(), slice));
            jobs.add(new PlanProblem.Job(j.id(), j.weight(), ceilDiv(j.gpus(), perGpu), d, ceilDiv(j.minGpus(), perGpu),
                    PlacementRules.ANY.withTopology(j.rules().topology()), allowed));
        }
        return new PlanProblem(h, decayPerStep, grid.nodeSizes(), grid.capacity(), grid.nodeFree(), jobs, PlanProblem.domains(ctx.cluster()),
                ModelGroups.models(ctx.cluster()), session.underFairShare() ? 1 : START_NOW_CAUTION);
    }

    /** Replicas one GPU takes on the tightest node that can hold the slice at all (1 when none can). */
    private static int replicasPerGpu(Cluster cluster, SliceRequest slice) {
        return cluster.nodes().stream().filter(n -> slice.fitsModel(n.gpuModel(), n.gpuMemoryMiB()))
                .mapToInt(n -> slice.replicasPerGpu(n.gpuMemoryMiB())).min().orElse(1);
    }

    private static int ceilDiv(int replicas, int perGpu) {
        return Math.max(1, (replicas + perGpu - 1) / perGpu);
    }

    /**
     * Work beyond its team's owed share waits for idle GPUs (whole-GPU work borrows them later; slices never run as fill).
     * Its reason, like the others here, is worded only when read: every decision gives one to every waiting job.
     */
    private static void waitsAsFill(Session session, PendingJob j, List<PendingJob> notStarted) {
        session.decision().waitRule(j.id(), Decision.WaitRule.OVER_SHARE);
        String owedGpus = session.owedOf(j.team());
        long doublingSeconds = session.context().fairShare().tree().ageDoublingSeconds();
        // the session (the whole moment) is held by the reason only where the budgets age work and the reason says how
        Supplier<String> rank = doublingSeconds == 0 ? () -> "" : () -> ageing(doublingSeconds, session.agedRank(j.id()));
        if (j.slice() != null) {
            // taking a slice back frees no GPU, so slices never run as fill: the job waits for its team's share
            session.decision().waiting(j.id(), () -> owed(owedGpus) + "fractional work does not run as fill, so it waits until its team is owed more" + rank.get());
            return;
        }
        notStarted.add(j);
        session.decision().waiting(j.id(), () -> owed(owedGpus) + "it runs as unallocated fill when GPUs are idle, and yields to budgeted work" + rank.get());
    }

    /**
     * Where the budgets age waiting work, the clause that says a wait moves the job up its team's budget, how fast, and
     * where its wait has put it (Slurm's sprio answers the same question for its age factor).
     */
    private static String ageing(long doublingSeconds, FairShareWeights.AgedRank aged) {
        String how = "; waiting moves it up: each " + Ranking.minutes(doublingSeconds) + " waited doubles the priority its team's budget ranks it by";
        if (aged == null) return how;
        String own = Decision.priority(aged.own());
        if (aged.nextAtSeconds() == 0 && aged.rank() == aged.own()) return how + ", up to its team's most urgent work, where its own priority (" + own + ") is already";
        String upTo = how + ", up to its team's most urgent work (" + Decision.priority(aged.cap()) + "): ";
        String next = aged.nextAtSeconds() == 0 ? ", the most it can"
                : ", and as " + Decision.priority(aged.nextRank()) + " from " + Instant.ofEpochSecond(aged.nextAtSeconds());
        if (aged.rank() == aged.own()) return upTo + "it ranks by its own priority (" + own + ")" + next;
        return upTo + "it has ranked as priority " + Decision.priority(aged.rank()) + " (its own: " + own + ") since " + Instant.ofEpochSecond(aged.sinceSeconds()) + next;
    }

    private static String owed(String owedGpus) {
        return "its team already runs all it is owed now (" + owedGpus + " GPUs); ";
    }

    /**
     * Where the inference reservation rises within the run the job would have if it started now, the clause that says
     * so: idle GPUs now are not room for a run that reaches a step the forecast keeps for inference, and a reason that
     * names only "the inference reservation" does not say where or when. Empty where the reservation does not rise above
     * its level now.
     */
    static String reservationRise(PlanningContext ctx, int[] reserved, PendingJob j) {
        if (reserved.length == 0) return "";
        int run = Ranking.stepsUntil(ctx, ctx.now() + j.estimatedRemainingSeconds(), reserved.length);
        int peak = 0;
        for (int t = 1; t < run; t++) if (reserved[t] > reserved[peak]) peak = t;
        if (peak == 0) return "";
        // the level now is left out: it moves with inference minute by minute, and the stored reason must not
        return "; within its estimated " + Ranking.minutes(j.estimatedRemainingSeconds()) + " run the inference reservation rises to "
                + Ranking.gpus(reserved[peak]) + " (" + Instant.ofEpochSecond(ctx.plannedStart(peak)) + ")";
    }

    /**
     * Where only the start-now caution kept the job from starting, the clause that says so: GPUs are idle, and a reason
     * that names only higher-value work does not say why the job may not use them until that work comes.
     */
    private static String heldByCaution(Plan plan, PendingJob j) {
        if (!plan.heldByCaution().containsKey(j.id())) return "";
        return "; its GPUs are free now for its estimated " + Ranking.minutes(j.estimatedRemainingSeconds()) + " run, but higher-value work is planned on them within "
                + START_NOW_CAUTION + " times that, and work starts now only where " + START_NOW_CAUTION
                + " times its estimate fits (an estimate is a median: many runs last far longer)";
    }

    /** The nodes that take no new work as the decision begins (drained or unhealthy), by index; read before later actions hold any. */
    private static List<Integer> nodesTakingNoWork(Session session) {
        List<Integer> out = new ArrayList<>();
        for (int n = 0; n < session.context().cluster().nodes().size(); n++) if (session.occupancy().isDrained(n)) out.add(n);
        return out;
    }

    /** "; node-1 takes no new work (...)" for the nodes of a model the job accepts among those out; empty where none is. */
    private static String outClause(PlanningContext ctx, PendingJob j, List<Integer> out) {
        if (out.isEmpty()) return "";
        List<String> names = out.stream().map(n -> ctx.cluster().nodes().get(n)).filter(node -> j.rules().accepts(node.gpuModel()))
                .map(GpuNode::name).toList();
        if (names.isEmpty()) return "";
        return "; " + Ranking.upToThree(names) + (names.size() == 1 ? " takes" : " take") + " no new work now (drained by an admin, or unhealthy)";
    }

    /** Starts a whole-GPU job the plan starts in this step; otherwise records why it waits. Returns whether it started. */
    private static boolean startIfPlannedNow(Session session, PendingJob j, Integer s, Plan plan, VictimPool fillPool, int[] reserved,
                                             List<Integer> outNodes) {
        PlanningContext ctx = session.context();
        long step = ctx.stepSeconds();
        Integer told = plan.toldStep(j.id());
        if (s == null || told == null) {
            long horizonSeconds = ctx.horizonSteps() * step;
            String out = outClause(ctx, j, outNodes);
            session.decision().waiting(j.id(), () -> "no room for " + Ranking.gpus(j.gpus()) + " for its estimated " + Ranking.minutes(j.estimatedRemainingSeconds())
                    + " within the " + Ranking.minutes(horizonSeconds) + " horizon beside higher-value work and the inference reservation" + out
                    + heldByCaution(plan, j));
            return false;
        }
        if (s > 0) {
            long in = told * step - ctx.now() % step;
            session.decision().waiting(j.id(), () -> "planned to start in about " + Ranking.minutes(in)
                    + " when " + Ranking.gpus(j.gpus()) + (j.gpus() == 1 ? " frees" : " free") + " up; higher-value work and the inference reservation hold them until then"
                    + reservationRise(ctx, reserved, j) + heldByCaution(plan, j));
            return false;
        }
        Placement placement = Preemption.place(session.occupancy(), j, plan.gpusOf(j.id(), j.gpus()), fillPool, session.decision(), Price.PLANNED);
        if (placement == null) {
            session.decision().waiting(j.id(), "fits by count but no node has a contiguous block of " + j.gpus() + " free GPUs yet");
            return false;
        }
        // under fair share, running work re-weighted to fill still stands protected until it is preempted: where the
        // plan's room is that work's, budgeted work starts as fill and is promoted once the room is there
        session.start(j.id(), placement, session.underFairShare() && !session.protectedRoomFor(placement));
        return true;
    }
}
