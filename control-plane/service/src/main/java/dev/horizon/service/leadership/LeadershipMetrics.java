package dev.horizon.service.leadership;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * Who leads, as each replica sees it: horizon_leader is 1 on the replica that leads, horizon_leader_epoch its epoch, and
 * horizon_leader_elections_total counts the terms this replica won, so a lease that keeps changing hands shows (the
 * flapping-lease alert) and so does a cluster where no replica leads.
 */
@Singleton
public class LeadershipMetrics {
    @Inject
    MeterRegistry registry;
    @Inject
    Leadership leadership;

    private Counter elections;

    @PostConstruct
    void register() {
        Gauge.builder("horizon_leader", leadership, l -> l.leading() ? 1 : 0).description("1 while this replica leads (plans and dispatches)")
                .register(registry);
        Gauge.builder("horizon_leader_epoch", leadership, Leadership::epoch).description("the epoch this replica leads in, 0 while it follows")
                .register(registry);
        elections = Counter.builder("horizon_leader_elections").description("terms this replica won (takeovers and restarts)").register(registry);
    }

    void changed(@Observes Leadership.Change change) {
        if (change.leading()) elections.increment();
    }
}
