package dev.horizon.allocator.policy;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.RunningJob;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.pool.PooledPlanner;
import java.util.List;
import java.util.Map;

/**
 * Horizon with each group of independent node pools planned apart, in parallel ({@link PooledPlanner}), as the control
 * plane plans: the same decisions as {@link HorizonPolicy} where the pools share nothing, in the time of the largest group.
 * Inference is sized and reclaimed as HorizonPolicy does it.
 */
public final class PooledHorizonPolicy implements SchedulingPolicy, AutoCloseable {
    private final HorizonPolicy horizon = new HorizonPolicy();
    private final PooledPlanner pooled;

    public PooledHorizonPolicy(int threads) {
        this.pooled = new PooledPlanner(HorizonPolicy::new, threads);
    }

    @Override
    public String name() {
        return "horizon-pooled";
    }

    @Override
    public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        return horizon.inferenceReservation(ctx);
    }

    @Override
    public boolean lendsReservation() {
        return horizon.lendsReservation();
    }

    @Override
    public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        return horizon.inferenceTargets(now, services);
    }

    @Override
    public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
        return horizon.inferenceVictims(running, gpusNeeded, now, cost);
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        return pooled.decide(ctx).decision();
    }

    @Override
    public void close() {
        pooled.close();
    }
}
