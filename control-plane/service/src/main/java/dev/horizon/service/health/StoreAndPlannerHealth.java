package dev.horizon.service.health;

import dev.horizon.service.planning.Planner;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.health.Startup;

/** Liveness: the process answers. Startup: the store is migrated and reachable. Readiness: that, and a plan has been made. */
@ApplicationScoped
public class StoreAndPlannerHealth {
    @Inject
    Db db;
    @Inject
    Planner planner;

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
        return () -> HealthCheckResponse.named("planner").status(db.reachable() && planner.hasRun())
                .withData("store", db.kind()).withData("plannerHasRun", planner.hasRun()).build();
    }
}
