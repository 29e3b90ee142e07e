package dev.horizon.allocator;

import java.util.Map;

/** One scheduling policy: Horizon's planner or a baseline. The simulator and the service call the same interface. */
public interface SchedulingPolicy {
    String name();

    /**
     * GPUs each inference service keeps for the step that starts now. When {@link #lendsReservation()}
     * is false they are held idle whatever the demand; otherwise the unused part may run fill work.
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
}
