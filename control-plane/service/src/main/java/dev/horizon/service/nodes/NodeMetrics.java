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

/** horizon_nodes{health}: how many nodes are HEALTHY, UNHEALTHY (drained) or LOST (agent silent), for the lost-agents alert. */
@Singleton
public class NodeMetrics {
    @Inject
    MeterRegistry registry;
    @Inject
    NodeStore nodes;

    private final Map<String, AtomicInteger> byHealth = new ConcurrentHashMap<>();

    @PostConstruct
    void register() {
        for (String health : List.of(Node.HEALTHY, Node.UNHEALTHY, Node.LOST)) {
            AtomicInteger count = new AtomicInteger();
            byHealth.put(health, count);
            Gauge.builder("horizon_nodes", count, AtomicInteger::get).tag("health", health).description("nodes by health, as the store holds them")
                    .register(registry);
        }
    }

    // every replica reads the store, so the figure does not depend on which one is scraped; the table is small
    @Scheduled(every = "15s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        Map<String, Integer> counts = nodes.countByHealth();
        byHealth.forEach((health, gauge) -> gauge.set(counts.getOrDefault(health, 0)));
    }
}
