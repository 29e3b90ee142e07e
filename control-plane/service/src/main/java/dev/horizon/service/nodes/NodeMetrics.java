package dev.horizon.service.nodes;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * horizon_nodes{health}: how many nodes are HEALTHY, UNHEALTHY (no new work; healthReason says why) or LOST (agent silent), for the
 * lost-agents alert; horizon_nodes_drained: how many an admin drained for maintenance (they keep their health, so a
 * health of its own would count them twice in the alert's total).
 */
@Singleton
public class NodeMetrics {
    @Inject
    MeterRegistry registry;
    @Inject
    NodeStore nodes;

    private final Map<String, AtomicInteger> byHealth = new ConcurrentHashMap<>();
    private final AtomicInteger drained = new AtomicInteger();

    @PostConstruct
    void register() {
        for (String health : List.of(Node.HEALTHY, Node.UNHEALTHY, Node.LOST)) {
            AtomicInteger count = new AtomicInteger();
            byHealth.put(health, count);
            Gauge.builder("horizon_nodes", count, AtomicInteger::get).tag("health", health).description("nodes by health, as the store holds them")
                    .register(registry);
        }
        Gauge.builder("horizon_nodes_drained", drained, AtomicInteger::get).description("nodes an admin drained: they take no new work until undrained")
                .register(registry);
    }

    // every replica reads the store, so the figure does not depend on which one is scraped; the table is small
    @Scheduled(every = "15s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        Map<String, Integer> counts = nodes.countByHealth();
        byHealth.forEach((health, gauge) -> gauge.set(counts.getOrDefault(health, 0)));
        drained.set(nodes.countDrained());
    }
}
