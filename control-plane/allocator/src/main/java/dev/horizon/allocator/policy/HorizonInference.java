package dev.horizon.allocator.policy;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.RunningJob;
import java.util.List;
import java.util.Map;

/** A Horizon variant that plans batch work its own way but sizes, lends and reclaims inference exactly as {@link HorizonPolicy}. */
abstract class HorizonInference implements SchedulingPolicy {
    protected final HorizonPolicy horizon = new HorizonPolicy();

    @Override
    public final Map<String, Integer> inferenceReservation(PlanningContext ctx) {
        return horizon.inferenceReservation(ctx);
    }

    @Override
    public final boolean lendsReservation() {
        return horizon.lendsReservation();
    }

    @Override
    public final Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        return horizon.inferenceTargets(now, services);
    }

    @Override
    public final List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost) {
        return horizon.inferenceVictims(running, gpusNeeded, now, cost);
    }

    @Override
    public final double unmetInferencePenalty() {
        return horizon.unmetInferencePenalty();
    }
}
