package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
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
}
