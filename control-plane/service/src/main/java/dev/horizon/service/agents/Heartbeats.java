package dev.horizon.service.agents;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.WhileLeading;
import dev.horizon.service.nodes.NodeStore;
import dev.horizon.service.plans.PlanRequests;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Takes out of the cluster the nodes whose agents went silent (killed, host down, network cut): they are marked LOST,
 * and the plan this asks for moves the jobs running on them back to pending, to be placed elsewhere. The node comes
 * back when its agent registers or reports again.
 */
@ApplicationScoped
public class Heartbeats {
    private static final Logger LOG = Logger.getLogger(Heartbeats.class);

    @Inject
    ServiceClock clock;
    @Inject
    NodeStore nodes;
    @Inject
    PlanRequests planner;
    @ConfigProperty(name = "horizon.agents.heartbeat-timeout-seconds")
    long timeoutSeconds;

    // every second, so a node is lost at most a second after its timeout; the query reads one small table
    // taking nodes out of the cluster is the leader's decision, as the plan it leads to is
    @Scheduled(every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = WhileLeading.class)
    void check() {
        List<String> lost = nodes.markSilentLost(clock.millis() - timeoutSeconds * 1000);
        if (lost.isEmpty()) return;
        LOG.warnf("nodes %s lost: nothing heard from their agents for %d s; their jobs are re-planned", lost, timeoutSeconds);
        planner.requestPlan();
    }
}
