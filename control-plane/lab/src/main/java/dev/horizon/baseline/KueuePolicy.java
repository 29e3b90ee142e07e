package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kueue's model (https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/, .../preemption/, .../fair_sharing/): a
 * ClusterQueue per team with nominalQuota = its share of the GPUs, all in one cohort with unlimited borrowing;
 * queueingStrategy BestEffortFIFO (priority, then creation time; a workload that does not fit is passed over, not
 * waited for); fair sharing with weight = share: the ClusterQueue with the lowest dominant resource share
 * (GPUs borrowed above nominal / weight) admits next; preemption reclaimWithinCohort: Any (a workload that fits in its
 * queue's nominal quota takes GPUs back from queues that borrow, any priority) and withinClusterQueue: LowerPriority,
 * with fair sharing's default strategies (LessThanOrEqualToFinalShare, LessThanInitialShare) between queues; admission is all-or-nothing and partial admission
 * lets an elastic job start on as few as its minimum. Pods are then placed by kube-scheduler, whose default scoring
 * (NodeResourcesFit LeastAllocated) spreads them. No preemption cuts into a job's minimum runtime. Inference is
 * autoscaled ({@link AutoscaledInference}).
 */
public final class KueuePolicy extends AutoscaledInference {
    private final TeamShares shares = new TeamShares();

    public KueuePolicy() {
        this(HpaSettings.DEFAULT);
    }

    /** With the inference autoscaler set as given (the bench calibrates it to a service level, see bench/SloCalibration). */
    public KueuePolicy(HpaSettings hpa) {
        super(hpa);
    }

    @Override
    public String name() {
        return "kueue";
    }

    /** The cohort's books for one cycle: each ClusterQueue's nominal quota, weight and usage. */
    private static final class Cohort {
        final Map<String, Double> nominal = new HashMap<>();
        final Map<String, Double> weight = new HashMap<>();
        final Map<String, Double> usage = new HashMap<>();

        /** Dominant resource share: GPUs used above nominal quota per unit of weight. */
        double share(String team, double plus) {
            double borrowed = Math.max(0, usage.getOrDefault(team, 0.0) + plus - nominal.getOrDefault(team, 0.0));
            double w = weight.getOrDefault(team, 0.0);
            return borrowed <= 1e-9 ? 0 : w <= 1e-9 ? Double.MAX_VALUE : borrowed / w;
        }

        boolean borrowing(String team) {
            return usage.getOrDefault(team, 0.0) > nominal.getOrDefault(team, 0.0) + 1e-9;
        }
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        Decision decision = new Decision();
        int gpus = ctx.cluster().totalGpus() - ctx.services().values().stream().mapToInt(PlanningContext.ServiceView::heldGpus).sum();
        Cohort cohort = new Cohort();
        shares.of(ctx).forEach((team, share) -> {
            cohort.nominal.put(team, share * gpus);
            cohort.weight.put(team, share);
        });
        ctx.running().forEach(r -> cohort.usage.merge(r.team(), (double) r.gpus(), Double::sum));
        Map<String, List<PendingJob>> queues = new LinkedHashMap<>();
        List<PendingJob> sorted = new ArrayList<>(ctx.pending());
        sorted.sort(Comparator.comparingDouble(PendingJob::weight).reversed().thenComparing(FifoPolicy.ARRIVAL_ORDER));
        for (PendingJob j : sorted) queues.computeIfAbsent(j.team(), k -> new ArrayList<>()).add(j);
        List<RunningJob> preemptible = new ArrayList<>(ctx.running());
        preemptible.removeIf(r -> r.protectedAt(ctx.now()) || r.placement().shared());
        Set<String> preempted = new HashSet<>();
        while (!queues.isEmpty()) {
            String team = queues.keySet().stream().min(Comparator.comparingDouble((String t) -> cohort.share(t, 0)).thenComparing(t -> t)).get();
            List<PendingJob> jobs = queues.get(team);
            PendingJob j = jobs.remove(0);
            if (jobs.isEmpty()) queues.remove(team);
            Placement p = admit(j, ctx.occupancy());
            if (p == null) p = preemptFor(j, ctx.occupancy(), cohort, preemptible, preempted, decision);
            if (p == null) {
                decision.waiting(j.id(), "ClusterQueue " + j.team() + " uses " + String.format("%.1f", cohort.usage.getOrDefault(j.team(), 0.0))
                        + " of its nominal " + String.format("%.1f", cohort.nominal.getOrDefault(j.team(), 0.0))
                        + " GPUs; no room in the cohort and no workload it may preempt");
                continue;
            }
            ctx.occupancy().occupy(p);
            decision.start(j.id(), p, false);
            cohort.usage.merge(j.team(), (double) p.gpuCount(), Double::sum);
        }
        return decision;
    }

    /** Admission with partial admission: the full width, else the widest allowed size that kube-scheduler can place now. */
    private static Placement admit(PendingJob j, Occupancy occupancy) {
        for (int width : j.allowedSizes()) {
            Placement p = DevicePluginSlices.place(j, width, occupancy, KUBE_SCHEDULER, false);
            if (p != null) return p;
        }
        return null;
    }

    /** Where kube-scheduler puts an admitted workload's pods: its default scoring spreads them. */
    private static final NodeOrder KUBE_SCHEDULER = NodeOrder.LEAST_ALLOCATED;

    /**
     * Kueue's candidates, cheapest first: workloads of borrowing queues when j fits in its own nominal quota
     * (reclaimWithinCohort: Any) or when fair sharing allows it (LessThanOrEqualToFinalShare: the target queue's share
     * without the workload stays at least j's queue's share with j; or LessThanInitialShare: j's queue's share with j
     * is below the target's now), then lower-priority workloads of j's own queue.
     */
    private static Placement preemptFor(PendingJob j, Occupancy occupancy, Cohort cohort, List<RunningJob> preemptible, Set<String> preempted,
                                        Decision decision) {
        boolean withinNominal = cohort.usage.getOrDefault(j.team(), 0.0) + j.gpus() <= cohort.nominal.getOrDefault(j.team(), 0.0) + 1e-9;
        double shareAfter = cohort.share(j.team(), j.gpus());
        List<RunningJob> others = new ArrayList<>(), own = new ArrayList<>();
        for (RunningJob r : preemptible) {
            if (preempted.contains(r.id())) continue;
            if (r.team().equals(j.team())) {
                if (r.weight() < j.weight()) own.add(r);
            } else if (cohort.borrowing(r.team()) && (withinNominal || cohort.share(r.team(), -r.gpus()) >= shareAfter
                    || cohort.share(r.team(), 0) > shareAfter)) {
                others.add(r);
            }
        }
        others.sort(Comparator.comparingDouble((RunningJob r) -> -cohort.share(r.team(), 0)).thenComparing(AutoscaledInference.LOWEST_PRIORITY_NEWEST_FIRST));
        own.sort(AutoscaledInference.LOWEST_PRIORITY_NEWEST_FIRST);
        List<RunningJob> candidates = new ArrayList<>(others);
        candidates.addAll(own);
        List<RunningJob> before = new ArrayList<>(candidates);
        Placement p = KubePreemption.freeFor(j.gpus(), j.rules(), KUBE_SCHEDULER, occupancy, candidates, decision);
        if (p == null) return null;
        before.removeAll(candidates);
        for (RunningJob v : before) {
            preempted.add(v.id());
            cohort.usage.merge(v.team(), (double) -v.gpus(), Double::sum);
        }
        return p;
    }
}
