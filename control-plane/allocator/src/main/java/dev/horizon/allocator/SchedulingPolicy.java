package dev.horizon.allocator;

import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.RunningJob;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One scheduling policy: Horizon's planner or a baseline. The simulator and the service call the same interface. */
public interface SchedulingPolicy {
    String name();

    /**
     * GPUs each inference service keeps out of protected planning for the step that starts now. When
     * {@link #lendsReservation()} is false they are held idle whatever the demand; otherwise the unused part may run fill.
     * Read from the context's clock, horizon and services alone: the start-time bands' futures ask it with the jobs left out.
     */
    Map<String, Integer> inferenceReservation(PlanningContext ctx);

    /** True when GPUs reserved for inference but not serving may run preemptible fill work. */
    boolean lendsReservation();

    /** Starts and preemptions to commit now. */
    Decision decide(PlanningContext ctx);

    /** Unmet real-time demand costs this many times its allocation reward (Dharma: 5-10x). */
    default double unmetInferencePenalty() {
        return 8.0;
    }

    /**
     * GPUs each service should hold for the minute that starts at {@code now}, sized only from the demand it has observed
     * ({@link PlanningContext.ServiceView#observedMinutes()}) and its forecast. By default: the step's reservation.
     */
    default Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
        Map<String, Integer> out = new LinkedHashMap<>();
        services.forEach((name, view) -> out.put(name, view.reservedGpus()));
        return out;
    }

    /**
     * Which running work gives its GPUs back when a service grows past the free GPUs (never work inside its minimum
     * runtime). No default: this package depends on no action; most policies answer with Reclaim.victims.
     */
    List<RunningJob> inferenceVictims(List<RunningJob> running, int gpusNeeded, long now, UnmetDemandCost cost);
}
