package dev.horizon.allocator.plan;

import java.util.Map;

/**
 * Start step for every job the planner placed inside the horizon (jobs absent did not fit), and the
 * width of each elastic job it planned narrower than asked.
 */
public record Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus) {
    public Plan(Map<String, Integer> startStep, double objective) {
        this(startStep, objective, Map.of());
    }

    public int gpusOf(String jobId, int asked) {
        return narrowedGpus.getOrDefault(jobId, asked);
    }
}
