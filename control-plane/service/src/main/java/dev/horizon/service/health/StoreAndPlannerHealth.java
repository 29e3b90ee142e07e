package dev.horizon.service.health;

import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.planning.Planner;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.health.Startup;

/**
 * Liveness: the process answers. Startup: the store is migrated and reachable. Readiness: that, and, on the leader, a plan
 * has been made; a follower is ready to serve reads and take submissions as soon as the store answers.
 */
@ApplicationScoped
public class StoreAndPlannerHealth {
    @Inject
    Db db;
    @Inject
    Planner planner;
    @Inject
    Leadership leadership;

    @Liveness
    HealthCheck alive() {
        return () -> HealthCheckResponse.up("horizon");
    }

    @Startup
    HealthCheck storeReady() {
        return () -> HealthCheckResponse.named("store").status(db.reachable()).withData("kind", db.kind()).build();
    }

    @Readiness
    HealthCheck ready() {
        return () -> {
            boolean leading = leadership.leading();
            return HealthCheckResponse.named("planner").status(db.reachable() && (planner.hasRun() || !leading))
                    .withData("store", db.kind()).withData("plannerHasRun", planner.hasRun()).withData("leader", leading)
                    .withData("leaderEpoch", leadership.epoch()).withData("replica", leadership.id()).build();
        };
    }
}
