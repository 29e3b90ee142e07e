package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.RunningJob;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scheduler with a HorizontalPodAutoscaler in front of its inference. How many replicas a service runs each minute is
 * the serving system's business, not the batch scheduler's (Horizon's control plane reserves and lends GPUs; it never
 * sizes replicas), so a cluster under Horizon can run the HPA that clusters under Kueue, KAI or Slurm run, and at an equal
 * service level the bench calibrates Horizon over the same HPA settings as the peers. Everything but the replicas per minute is
 * the scheduler's own: Horizon still reserves by its forecast and lends what inference does not hold.
 */
public final class ServedBy implements SchedulingPolicy {
    private final SchedulingPolicy scheduler;
    private final HorizontalPodAutoscaler autoscaler;

    private ServedBy(SchedulingPolicy scheduler, HorizontalPodAutoscaler autoscaler) {
        this.scheduler = scheduler;
        this.autoscaler = autoscaler;
    }

    /** The scheduler with a HorizontalPodAutoscaler of these settings sizing its services. */
    public static ServedBy hpa(SchedulingPolicy scheduler, HpaSettings settings) {
        return new ServedBy(scheduler, new HorizontalPodAutoscaler(settings));
    }

    @Override
    public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        Map<String, Integer> out = new LinkedHashMap<>();
        services.forEach((name, view) -> out.put(name, autoscaler.replicas(name, view, now)));
        return out;
    }

    @Override
    public String name() {
        return scheduler.name();
    }

    @Override
    public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        return scheduler.inferenceReservation(ctx);
    }

    @Override
    public boolean lendsReservation() {
        return scheduler.lendsReservation();
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        return scheduler.decide(ctx);
    }

    @Override
    public double unmetInferencePenalty() {
        return scheduler.unmetInferencePenalty();
    }

    @Override
    public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
        return scheduler.inferenceVictims(running, gpusNeeded, now, cost);
    }
}
