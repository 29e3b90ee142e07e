package dev.horizon.service.agents;

import dev.horizon.service.security.Tokens;
import dev.horizon.service.store.StoreException;
import io.grpc.Status;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Agents' long-lived streams (Telemetry, Commands) end with UNAUTHENTICATED as soon as the token they were opened with
 * stops being live: at once when it is revoked on this replica, and within a second when it is revoked on another one
 * or expires (each replica looks up the tokens of its open streams every second, in one query).
 */
@ApplicationScoped
public class AgentStreams {
    @Inject
    Tokens tokens;

    /** Token id to the cuts of the streams opened with it. */
    private final Map<String, List<Runnable>> open = new ConcurrentHashMap<>();

    /** stream as it is, except that it fails with UNAUTHENTICATED (and stops reading its source) once tokenId is not live. */
    <T> Multi<T> untilRevoked(String tokenId, Multi<T> stream) {
        return Multi.createFrom().emitter(emitter -> {
            Runnable cut = () -> emitter.fail(Status.UNAUTHENTICATED.withDescription("token " + tokenId
                    + " was revoked or has expired; this stream is closed").asRuntimeException());
            open.computeIfAbsent(tokenId, id -> new CopyOnWriteArrayList<>()).add(cut);
            Cancellable source = stream.subscribe().with(emitter::emit, emitter::fail, emitter::complete);
            emitter.onTermination(() -> {
                source.cancel();
                open.computeIfPresent(tokenId, (id, cuts) -> {
                    cuts.remove(cut);
                    return cuts.isEmpty() ? null : cuts;
                });
            });
        });
    }

    void revokedHere(@Observes Tokens.Revoked event) {
        cut(event.id());
    }

    @Scheduled(every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        Set<String> ids = Set.copyOf(open.keySet());
        if (ids.isEmpty()) return;
        Set<String> live;
        try {
            live = tokens.liveAmong(ids);
        } catch (StoreException e) {
            return; // the store is down: streams stay as they are until it answers again
        }
        ids.stream().filter(id -> !live.contains(id)).forEach(this::cut);
    }

    private void cut(String tokenId) {
        List<Runnable> cuts = open.get(tokenId);
        if (cuts != null) List.copyOf(cuts).forEach(Runnable::run);
    }
}
