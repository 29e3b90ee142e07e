package dev.horizon.service.planning;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The decision maker of the service's plans: Horizon's policy, the same one the simulator measures, keeping each job's
 * planned start step (the plan's grid) so the service can say when a waiting job should start.
 */
@ApplicationScoped
public class PlanningPolicy {
    /** The decision; each planned job's start step; which planner made it; the node-pool groups it planned. */
    public record Outcome(Decision decision, Map<String, Integer> startSteps, String mode, List<String> groups) {
    }

    public Outcome decide(PlanningContext ctx) {
        Map<String, Integer> steps = new ConcurrentHashMap<>();
        Decision d = capturing(steps).decide(ctx);
        return new Outcome(d, steps, "heuristic", List.of());
    }

    /** The same policy as {@code new HorizonPolicy()}, keeping the plan's start steps in steps. */
    static HorizonPolicy capturing(Map<String, Integer> steps) {
        HeuristicPlanner heuristic = new HeuristicPlanner();
        return new HorizonPolicy("horizon", 0.99, 8.0, problem -> {
            Plan p = heuristic.plan(problem);
            steps.putAll(p.startStep());
            return p;
        });
    }
}
