package dev.horizon.allocator.policy;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.pool.PooledPlanner;
import java.util.function.Supplier;

/**
 * Horizon with each group of independent node pools planned apart, in parallel ({@link PooledPlanner}), as the control
 * plane plans: the same decisions as {@link HorizonPolicy} where the pools share nothing, in the time of the largest group.
 * Inference is sized and reclaimed as HorizonPolicy does it.
 */
public final class PooledHorizonPolicy extends HorizonInference implements AutoCloseable {
    private final PooledPlanner pooled;

    public PooledHorizonPolicy(int threads) {
        this(HorizonPolicy::new, threads);
    }

    /** policies: a new Horizon policy per group (the service's full mode gives each group its own CP-SAT planner). */
    public PooledHorizonPolicy(Supplier<HorizonPolicy> policies, int threads) {
        this.pooled = new PooledPlanner(policies::get, threads);
    }

    @Override
    public String name() {
        return "horizon-pooled";
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        return plan(ctx).decision();
    }

    /** The decision with the groups it was planned in and what each took. */
    public PooledPlanner.Result plan(PlanningContext ctx) {
        return pooled.decide(ctx);
    }

    @Override
    public void close() {
        pooled.close();
    }
}
