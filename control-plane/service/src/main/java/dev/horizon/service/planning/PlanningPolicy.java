package dev.horizon.service.planning;

import dev.horizon.allocator.Decision;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.pool.PoolConstraints;
import dev.horizon.allocator.pool.PooledPlanner;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The decision maker of the service's plans: Horizon's policy, the same one the simulator measures, through the pooled
 * planner: node pools that share no work (no job, service or running job accepting models of two of them) are planned
 * apart, in parallel, and where every pool depends on every other it is the joint plan on the moment as given. It keeps
 * each job's planned start step (the plan's grid) so the service can say when a waiting job should start.
 */
@ApplicationScoped
public class PlanningPolicy {
    /** The decision; each planned job's start step; which planner made it; the node-pool groups it planned apart. */
    public record Outcome(Decision decision, Map<String, Integer> startSteps, String mode, List<String> groups) {
    }

    @ConfigProperty(name = "horizon.planner.pool-threads", defaultValue = "2")
    int poolThreads;

    private PooledPlanner pooled;
    /** Filled by each group's planner during one decision; the loop decides one plan at a time. */
    private final Map<String, Integer> steps = new ConcurrentHashMap<>();

    @PostConstruct
    void open() {
        pooled = new PooledPlanner(() -> capturing(new HeuristicPlanner()::plan, steps), poolThreads);
    }

    void close(@Observes ShutdownEvent event) {
        pooled.close();
    }

    public Outcome decide(PlanningContext ctx) {
        steps.clear();
        PooledPlanner.Result r = pooled.decide(ctx, constraints(ctx));
        List<String> groups = r.groups().size() < 2 ? List.of() : r.groups().stream().map(g -> String.join("+", g.models())).toList();
        return new Outcome(r.decision(), Map.copyOf(steps), groups.isEmpty() ? "heuristic" : "pooled", groups);
    }

    /**
     * The GPU models each waiting job accepts, from its placement rules. Running jobs are tied to the nodes they hold, and
     * an inference service may grow onto any model, so a cluster with one plans jointly.
     */
    static PoolConstraints constraints(PlanningContext ctx) {
        Map<String, Set<String>> models = new HashMap<>();
        for (PendingJob j : ctx.pending()) models.put(j.id(), j.rules().gpuTypes());
        return new PoolConstraints(models, Map.of());
    }

    /** The same policy as {@code new HorizonPolicy()} on the given planner, keeping the plan's start steps in into. */
    static HorizonPolicy capturing(Function<PlanProblem, Plan> planner, Map<String, Integer> into) {
        return new HorizonPolicy("horizon", 0.99, 8.0, problem -> {
            Plan p = planner.apply(problem);
            into.putAll(p.startStep());
            return p;
        });
    }
}
