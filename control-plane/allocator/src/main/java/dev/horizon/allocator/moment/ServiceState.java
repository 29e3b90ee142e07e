package dev.horizon.allocator.moment;

import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.Placement;
import java.util.List;

/**
 * One inference service: the GPUs it holds now (one placement per replica), the GPUs the policy reserved for it this
 * step, the demand it has shown, per planning step (oldest first, the last one the step that just ended) and per minute
 * (the last one the minute that just ended; empty where only steps are known), and the highest demand of its history.
 */
public record ServiceState(InferenceService service, List<Placement> held, int reservedGpus, double[] observedSteps,
                           double[] observedMinutes, int historicalPeakGpus) {
    public ServiceState {
        held = List.copyOf(held);
    }

    public int heldGpus() {
        return held.stream().mapToInt(Placement::gpuCount).sum();
    }
}
