package dev.horizon.service.planning;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.policy.PooledHorizonPolicy;
import dev.horizon.allocator.pool.PooledPlanner;
import dev.horizon.service.plans.PlannerSettings;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The decision maker of the service's plans: Horizon's policy, the same one the simulator measures, through the
 * allocator's pooled policy ({@link PooledHorizonPolicy}): node pools that share no work (no job, service or running job
 * accepting models of two of them) are planned apart, in parallel, and where every pool depends on every other it is the
 * joint plan on the moment as given. The decision says why each job waits and when the plan expects it to start.
 */
@ApplicationScoped
public class PlanningPolicy {
    /** The decision; which planner made it; the node-pool groups it planned apart. */
    public record Outcome(Decision decision, String mode, List<String> groups) {
    }

    @Inject
    PlannerSettings settings;

    private PooledHorizonPolicy pooled;

    void close(@Observes ShutdownEvent event) {
        if (pooled != null) pooled.close();
    }

    public Outcome decide(PlanningContext ctx) {
        // made on first use: its worker threads are not needed until a plan is
        if (pooled == null) pooled = new PooledHorizonPolicy(settings.poolThreads());
        PooledPlanner.Result r = pooled.plan(ctx);
        return new Outcome(r.decision(), r.groupNames().isEmpty() ? "heuristic" : "pooled", r.groupNames());
    }
}
