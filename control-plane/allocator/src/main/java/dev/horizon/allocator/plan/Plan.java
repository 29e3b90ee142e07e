package dev.horizon.allocator.plan;

import dev.horizon.allocator.model.Decision;
import java.util.Map;
import java.util.Set;

/**
 * Start step for every job the planner placed inside the horizon (jobs absent did not fit), and the
 * width of each elastic job it planned narrower than asked; solver: the statistics of the solver run that made it (null
 * for the heuristic). heldByCaution: the jobs not started now that fitted now for their estimated run, and were kept
 * out only by {@link PlanProblem#startNowCaution} (known where the heuristic made the plan; empty otherwise).
 */
public record Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus, Decision.SolverStats solver,
                   Set<String> heldByCaution) {
    public Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus, Set<String> heldByCaution) {
        this(startStep, objective, narrowedGpus, null, heldByCaution);
    }

    public Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus) {
        this(startStep, objective, narrowedGpus, Set.of());
    }

    public Plan(Map<String, Integer> startStep, double objective) {
        this(startStep, objective, Map.of());
    }

    /** This plan, as made by a solver run with these statistics. */
    public Plan solvedBy(Decision.SolverStats stats) {
        return new Plan(startStep, objective, narrowedGpus, stats, heldByCaution);
    }

    public int gpusOf(String jobId, int asked) {
        return narrowedGpus.getOrDefault(jobId, asked);
    }
}
