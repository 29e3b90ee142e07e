package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.actions.reclaim.Reclaim;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a Kubernetes (or Slurm-beside-Kubernetes) cluster runs real-time inference: a HorizontalPodAutoscaler sizes each
 * service from what it has observed, nothing is reserved ahead, and the serving pods' priority class is above all
 * batch work, so a growing service preempts batch work: the lowest priority first and, among equals, the most recently
 * started (kube-scheduler's choice, which loses the least work), never work inside its minimum runtime.
 */
abstract class AutoscaledInference implements SchedulingPolicy {
    private final HorizontalPodAutoscaler hpa;

    AutoscaledInference(HpaSettings hpa) {
        this.hpa = new HorizontalPodAutoscaler(hpa);
    }

    static final Comparator<RunningJob> LOWEST_PRIORITY_NEWEST_FIRST = Comparator.comparingDouble(RunningJob::weight)
            .thenComparing(Comparator.comparingLong(RunningJob::startSeconds).reversed()).thenComparing(RunningJob::id);

    @Override
    public final Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        Map<String, Integer> none = new LinkedHashMap<>();
        ctx.services().keySet().forEach(name -> none.put(name, 0));
        return none;
    }

    @Override
    public final boolean lendsReservation() {
        return false;
    }

    @Override
    public final Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        Map<String, Integer> out = new LinkedHashMap<>();
        services.forEach((name, view) -> out.put(name, hpa.replicas(name, view, now)));
        return out;
    }

    @Override
    public final List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
        List<RunningJob> candidates = new ArrayList<>(running);
        candidates.removeIf(r -> r.protectedAt(now) || r.placement().shared());
        candidates.sort(LOWEST_PRIORITY_NEWEST_FIRST);
        List<RunningJob> victims = new ArrayList<>();
        int freed = 0;
        for (RunningJob r : candidates) {
            if (freed >= gpusNeeded) break;
            victims.add(r);
            freed += r.gpus();
        }
        return victims;
    }
}
