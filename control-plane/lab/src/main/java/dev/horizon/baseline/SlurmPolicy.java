package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Slurm's model (https://slurm.schedmd.com/priority_multifactor.html, fair_tree.html, sched_config.html,
 * preempt.html): PriorityType=priority/multifactor with PriorityWeightQOS=10000 (the job's priority class as its QOS),
 * PriorityWeightFairshare=10000 (fair tree over one account per team, shares = the team's share,
 * PriorityDecayHalfLife=7-0), PriorityWeightAge=1000 (PriorityMaxAge=7-0) and PriorityWeightJobSize=1000
 * (PriorityFavorSmall=NO); SchedulerType=sched/backfill, which plans every waiting job in priority order at the
 * earliest time GPUs it may use (its GPU model, gang and topology) are free by the jobs' time limits (here: the duration
 * estimates) and so holds a reservation for each, starting a lower job now only where it delays none of them (bf_window = the 24 h horizon); PreemptType=
 * preempt/qos with PreemptMode=REQUEUE: a job that cannot start requeues running jobs of a lower QOS, never before
 * their PreemptExemptTime (the job's minimum runtime). Inference is autoscaled ({@link AutoscaledInference}).
 */
public final class SlurmPolicy extends AutoscaledInference {
    static final double WEIGHT_QOS = 10_000, WEIGHT_FAIRSHARE = 10_000, WEIGHT_AGE = 1_000, WEIGHT_JOB_SIZE = 1_000;
    static final long DECAY_HALF_LIFE_SECONDS = 7 * 86_400, MAX_AGE_SECONDS = 7 * 86_400;
    private final TeamShares shares = new TeamShares();
    private final HeuristicPlanner backfill = new HeuristicPlanner();
    /** Each account's GPU-seconds used, decayed with the half-life, as of {@link #usageAt}. */
    private final Map<String, Double> usage = new HashMap<>();
    private final Map<String, Double> runningGpus = new HashMap<>();
    private long usageAt;

    public SlurmPolicy() {
        this(HpaSettings.DEFAULT);
    }

    /** With the inference autoscaler set as given (the bench calibrates it to a service level, see bench/SloCalibration). */
    public SlurmPolicy(HpaSettings hpa) {
        super(hpa);
    }

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        chargeUsage(ctx);
        Map<String, Double> fairShare = fairTree(shares.of(ctx));
        double maxQos = 1;
        for (PendingJob j : ctx.pending()) maxQos = Math.max(maxQos, j.weight());
        for (RunningJob r : ctx.running()) maxQos = Math.max(maxQos, r.weight());
        Map<String, Double> priority = new HashMap<>();
        for (PendingJob j : ctx.pending()) {
            double age = Math.min(1, Math.max(0, ctx.now() - j.arrivalSeconds()) / (double) MAX_AGE_SECONDS);
            priority.put(j.id(), WEIGHT_QOS * j.weight() / maxQos + WEIGHT_FAIRSHARE * fairShare.getOrDefault(j.team(), 0.0)
                    + WEIGHT_AGE * age + WEIGHT_JOB_SIZE * j.gpus() / (double) ctx.cluster().totalGpus());
        }
        List<PendingJob> queue = new ArrayList<>(ctx.pending());
        queue.sort(Comparator.comparingDouble((PendingJob j) -> -priority.get(j.id())).thenComparing(FifoPolicy.ARRIVAL_ORDER));
        Decision decision = new Decision();
        Plan plan = backfill.plan(problem(ctx, queue));
        Occupancy occupancy = ctx.occupancy();
        List<PendingJob> notStarted = new ArrayList<>();
        for (PendingJob j : queue) {
            Integer s = plan.startStep().get(j.id());
            Placement p = s != null && s == 0 ? DevicePluginSlices.place(j, j.gpus(), occupancy, NodeOrder.BEST_FIT, false) : null;
            if (p == null) {
                notStarted.add(j);
                decision.waiting(j.id(), s == null ? "no room within the backfill window" : "reserved to start in about " + s * ctx.stepSeconds() / 60 + " min");
                continue;
            }
            occupancy.occupy(p);
            decision.start(j.id(), p, false);
        }
        requeueForHigherQos(ctx, notStarted, decision);
        return decision;
    }

    /** preempt/qos, REQUEUE: the highest-priority jobs that cannot start take GPUs from lower-QOS jobs past their exempt time. */
    private static void requeueForHigherQos(PlanningContext ctx, List<PendingJob> notStarted, Decision decision) {
        List<RunningJob> preemptible = new ArrayList<>(ctx.running());
        preemptible.removeIf(r -> r.protectedAt(ctx.now()) || r.placement().shared());
        preemptible.sort(AutoscaledInference.LOWEST_PRIORITY_NEWEST_FIRST);
        for (PendingJob j : notStarted) {
            List<RunningJob> lower = new ArrayList<>(preemptible);
            lower.removeIf(r -> r.weight() >= j.weight());
            if (lower.isEmpty()) continue;
            List<RunningJob> before = new ArrayList<>(lower);
            Placement p = KubePreemption.freeFor(j.gpus(), j.rules(), NodeOrder.BEST_FIT, ctx.occupancy(), lower, decision);
            if (p == null) continue;
            before.removeAll(lower);
            preemptible.removeAll(before);
            ctx.occupancy().occupy(p);
            decision.start(j.id(), p, false);
            decision.waitReasons().remove(j.id());
        }
    }

    /** The backfill scheduler's map: running jobs until their estimated ends, inference as it holds now, jobs in priority order. */
    private static PlanProblem problem(PlanningContext ctx, List<PendingJob> queue) {
        int h = ctx.horizonSteps(), nodes = ctx.cluster().nodes().size();
        long step = ctx.stepSeconds();
        int[] capacity = new int[h];
        int inference = ctx.services().values().stream().mapToInt(PlanningContext.ServiceView::heldGpus).sum();
        java.util.Arrays.fill(capacity, ctx.cluster().totalGpus() - inference);
        int[] sizes = new int[nodes];
        int[][] nodeFree = new int[nodes][h];
        for (int n = 0; n < nodes; n++) {
            sizes[n] = ctx.cluster().nodes().get(n).gpus();
            java.util.Arrays.fill(nodeFree[n], sizes[n]);
            nodeFree[n][0] = ctx.occupancy().freeOn(n);
        }
        long stepStart = ctx.stepIndex() * step;
        for (RunningJob r : ctx.running()) {
            int end = (int) Math.max(1, Math.min(h, (r.estimatedEndSeconds() - stepStart + step - 1) / step));
            for (int t = 0; t < end; t++) capacity[t] -= r.gpus();
            for (Placement.Slice s : r.placement().slices()) {
                for (int t = 1; t < end; t++) nodeFree[s.node()][t] -= s.count();
            }
        }
        List<PlanProblem.Job> jobs = new ArrayList<>();
        for (PendingJob j : queue) {
            int d = (int) Math.max(1, Math.min(h, (j.estimatedRemainingSeconds() + step - 1) / step));
            jobs.add(new PlanProblem.Job(j.id(), j.weight(), j.gpus(), d, j.gpus(), j.rules(), PlanProblem.allowedNodes(ctx.cluster(), j)));
        }
        return new PlanProblem(h, 1.0, sizes, capacity, nodeFree, jobs, PlanProblem.domains(ctx.cluster()), ModelGroups.models(ctx.cluster()));
    }

    /** Adds the GPU-seconds each account ran since the last decision and decays all usage by the half-life. */
    private void chargeUsage(PlanningContext ctx) {
        long dt = Math.max(0, ctx.now() - usageAt);
        double decay = Math.pow(0.5, dt / (double) DECAY_HALF_LIFE_SECONDS);
        usage.replaceAll((team, used) -> used * decay);
        runningGpus.forEach((team, gpus) -> usage.merge(team, gpus * dt, Double::sum));
        runningGpus.clear();
        for (RunningJob r : ctx.running()) runningGpus.merge(r.team(), (double) r.gpus(), Double::sum);
        usageAt = ctx.now();
    }

    /**
     * Fair tree over one level of accounts: each account's level fair share is its share over its share of the decayed
     * usage; accounts are ranked by it, and the factor is 1 for the top account down to 1/N for the last.
     */
    private Map<String, Double> fairTree(Map<String, Double> teamShares) {
        double totalUsage = usage.values().stream().mapToDouble(Double::doubleValue).sum();
        double totalShares = teamShares.values().stream().mapToDouble(Double::doubleValue).sum();
        List<String> ranked = new ArrayList<>(teamShares.keySet());
        Map<String, Double> level = new HashMap<>();
        for (String team : ranked) {
            double s = totalShares <= 0 ? 0 : teamShares.get(team) / totalShares;
            double u = totalUsage <= 0 ? 0 : usage.getOrDefault(team, 0.0) / totalUsage;
            level.put(team, u <= 0 ? (s > 0 ? Double.MAX_VALUE : 0) : s / u);
        }
        ranked.sort(Comparator.comparingDouble((String t) -> -level.get(t)).thenComparing(t -> t));
        Map<String, Double> factor = new HashMap<>();
        for (int i = 0; i < ranked.size(); i++) factor.put(ranked.get(i), (ranked.size() - i) / (double) ranked.size());
        return factor;
    }
}
