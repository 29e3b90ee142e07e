package dev.horizon.allocator.policy;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.pool.PooledPlanner;

/**
 * Horizon with each group of independent node pools planned apart, in parallel ({@link PooledPlanner}), as the control
 * plane plans: the same decisions as {@link HorizonPolicy} where the pools share nothing, in the time of the largest group.
 * Inference is sized and reclaimed as HorizonPolicy does it.
 */
public final class PooledHorizonPolicy extends HorizonInference implements AutoCloseable {
    private final PooledPlanner pooled;

    public PooledHorizonPolicy(int threads) {
        this.pooled = new PooledPlanner(HorizonPolicy::new, threads);
    }

    @Override
    public String name() {
        return "horizon-pooled";
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
