package dev.horizon.allocator.plan;

import dev.horizon.allocator.model.Decision;
import java.util.Map;

/**
 * Start step for every job the planner placed inside the horizon (jobs absent did not fit), and the
 * width of each elastic job it planned narrower than asked; solver: the statistics of the solver run that made it (null
 * for the heuristic). heldByCaution: the jobs not started now that fitted now for their estimated run, and were kept
 * out only by {@link PlanProblem#startNowCaution}, each with the first step from which its cautious run fits (-1: none
 * within the horizon); for a solver's plan, each such job is weighed beside the rest of that plan.
 */
public record Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus, Decision.SolverStats solver,
                   Map<String, Integer> heldByCaution) {
    public Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus, Map<String, Integer> heldByCaution) {
        this(startStep, objective, narrowedGpus, null, heldByCaution);
    }

    public Plan(Map<String, Integer> startStep, double objective, Map<String, Integer> narrowedGpus) {
        this(startStep, objective, narrowedGpus, Map.of());
    }

    public Plan(Map<String, Integer> startStep, double objective) {
        this(startStep, objective, Map.of());
    }

    /**
     * The step a waiting job is told it starts at (null: none within the horizon). The plan's own start, except for a job
     * the caution holds: the plan places it in the gap, but when that step comes it starts only where its cautious run
     * fits, so it is told the first step from which that run fits (a job told "in 15 min" at every decision was told
     * something the policy would not do).
     */
    public Integer toldStep(String jobId) {
        Integer cautious = heldByCaution.get(jobId);
        if (cautious == null) return startStep.get(jobId);
        return cautious < 0 ? null : cautious;
    }

    /** This plan, as made by a solver run with these statistics. */
    public Plan solvedBy(Decision.SolverStats stats) {
        return new Plan(startStep, objective, narrowedGpus, stats, heldByCaution);
    }

    public int gpusOf(String jobId, int asked) {
        return narrowedGpus.getOrDefault(jobId, asked);
    }
}
