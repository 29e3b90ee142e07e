package dev.horizon.allocator.policy;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.function.Function;

/**
 * Horizon with the control plane's full mode: the first decision of every {@code everySeconds} plans with CP-SAT
 * warm-started from the heuristic plan within its time limit (its plan is used only where it scores higher); the other
 * decisions use the heuristic, as the hot path does between full-mode runs.
 */
public final class FullModeHorizonPolicy extends HorizonInference {
    private final HorizonPolicy full;
    private final long everySeconds;
    private long lastFull = Long.MIN_VALUE;

    /** fullPlanner: the planner of full mode, a {@link CpSatPlanner} (warm-started from the heuristic, never worse than it). */
    public FullModeHorizonPolicy(String name, Function<PlanProblem, Plan> fullPlanner, long everySeconds) {
        if (everySeconds < 1) throw new IllegalArgumentException("everySeconds must be >= 1 (got " + everySeconds + ")");
        this.full = new HorizonPolicy(name, fullPlanner);
        this.everySeconds = everySeconds;
    }

    @Override
    public String name() {
        return full.name();
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        if (lastFull != Long.MIN_VALUE && ctx.now() - lastFull < everySeconds) return horizon.decide(ctx);
        lastFull = ctx.now();
        return full.decide(ctx);
    }
}
