package dev.horizon.service.agents;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.WhileLeading;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.plans.PlanRequests;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Gives agent commands a time-to-live: one no agent answered within {@code horizon.agents.command-ttl-seconds} is
 * failed, and a plan is asked for, so a GPU held for a MIG layout its agent never applied (agent away, stream lost) is
 * planned again instead of waiting for good.
 */
@ApplicationScoped
public class CommandExpiry {
    private static final Logger LOG = Logger.getLogger(CommandExpiry.class);

    @Inject
    ServiceClock clock;
    @Inject
    CommandStore commands;
    @Inject
    PlanRequests planner;
    @ConfigProperty(name = "horizon.agents.command-ttl-seconds")
    long ttlSeconds;

    // what the leader queued, the leader expires: the plan it asks for is its own
    @Scheduled(every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = WhileLeading.class)
    void check() {
        expire();
    }

    /** Fails the commands past their time-to-live now; returns how many. */
    public int expire() {
        long now = clock.millis();
        int expired = commands.expireUnanswered(now - ttlSeconds * 1000, ttlSeconds, now);
        if (expired > 0) {
            LOG.warnf("%d agent commands expired unanswered after %d s; their GPUs are planned again", expired, ttlSeconds);
            planner.requestPlan();
        }
        return expired;
    }
}
