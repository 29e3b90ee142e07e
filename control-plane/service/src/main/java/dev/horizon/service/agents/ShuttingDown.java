package dev.horizon.service.agents;

import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * Whether the control plane has begun to shut down. Its connection pool and then its beans go before the agents' calls
 * drain, so what an agent call meets from then on is the shutdown itself, not a fault. A singleton (no client proxy):
 * it still answers once the container is gone.
 */
@Singleton
public class ShuttingDown {
    private volatile boolean begun;

    void begin(@Observes ShutdownEvent event) {
        begun = true;
    }

    public boolean begun() {
        return begun;
    }
}
