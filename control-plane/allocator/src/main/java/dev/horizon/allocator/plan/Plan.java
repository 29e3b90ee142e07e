package dev.horizon.allocator.plan;

import dev.horizon.allocator.model.Decision;
import java.util.Map;

/**
 * Start step for every job the planner placed inside the horizon (jobs absent did not fit), and the
 * width of each elastic job it planned narrower than asked; solver: the statistics of the solver run that made it (null
 * for the heuristic).
 */
public record Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus, Decision.SolverStats solver) {
    public Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus) {
        this(startStep, objective, narrowedGpus, null);
    }

    public Plan(Map<String, Integer> startStep, double objective) {
        this(startStep, objective, Map.of());
    }

    /** This plan, as made by a solver run with these statistics. */
    public Plan solvedBy(Decision.SolverStats stats) {
        return new Plan(startStep, objective, narrowedGpus, stats);
    }

    public int gpusOf(String jobId, int asked) {
        return narrowedGpus.getOrDefault(jobId, asked);
    }
}
