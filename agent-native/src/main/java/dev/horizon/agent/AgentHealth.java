package dev.horizon.agent;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * Liveness: NVML answers. Readiness: that, the agent is registered with a reachable control plane, and its node is not
 * waiting for an admin's approval (as a kubelet's node stays NotReady until its certificate is approved).
 */
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
            if (problem == null && link.awaitingApproval()) {
                problem = "node " + link.nodeId() + " awaits an admin's approval; it gets no work until ./horizon node approve " + link.nodeId();
            }
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
