package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.actions.reclaim.Reclaim;
import dev.horizon.allocator.model.RunningJob;
import java.util.List;
import java.util.Map;

/** The baselines' shared stance on inference: each service holds its historical daily peak, idle or not. */
abstract class PeakReservingPolicy implements SchedulingPolicy {
    @Override
    public final Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        return PeakReservation.of(ctx);
    }

    @Override
    public final boolean lendsReservation() {
        return false;
    }

    /** Inference takes GPUs back by the contract's rule: fill first, never work inside its minimum runtime. */
    @Override
    public final List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
        return Reclaim.victims(running, gpusNeeded, now, cost);
    }
}
