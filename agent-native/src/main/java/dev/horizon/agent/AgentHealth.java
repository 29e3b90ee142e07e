package dev.horizon.agent;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/** Liveness: NVML answers. Readiness: that, and the agent is registered with a reachable control plane. */
@ApplicationScoped
public class AgentHealth {
    @Inject
    Nvml nvml;
    @Inject
    ControlPlaneLink link;

    @Liveness
    HealthCheck nvmlAnswers() {
        return () -> {
            String problem = nvmlProblem();
            return HealthCheckResponse.named("nvml").status(problem == null).withData("problem", problem == null ? "none" : problem).build();
        };
    }

    @Readiness
    HealthCheck registered() {
        return () -> {
            String problem = nvmlProblem();
            if (problem == null && !link.connected()) problem = "control plane: " + link.problem();
            return HealthCheckResponse.named("control-plane").status(problem == null).withData("problem", problem == null ? "none" : problem)
                    .build();
        };
    }

    private String nvmlProblem() {
        if (!nvml.isOpen()) return nvml.failure();
        try {
            nvml.session().deviceCount();
            return null;
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }
}
