package dev.horizon.service.nodes;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.Leadership;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hands queued commands to the stream of each node's agent. A command is stored before it is streamed, so one queued
 * while its agent is away reaches the agent when it connects; a reconnecting agent also gets again those it was sent
 * but never answered, since the answer may have been lost with the old stream. Only the leader queues commands, but an
 * agent may be connected to any replica, so each replica also looks in the store every second for commands for the
 * agents connected to it.
 */
@ApplicationScoped
public class CommandQueue {
    @Inject
    ServiceClock clock;
    @Inject
    CommandStore store;
    @Inject
    Leadership leadership;

    /** One open stream per node: the agent's newest connection. Guarded by this. */
    private final Map<String, MultiEmitter<? super NodeCommand>> streams = new HashMap<>();

    public NodeCommand queue(String node, CommandRequest action) {
        long epoch = leadership.requireLeading("sending commands to agents");
        NodeCommand command = store.insert(node, action, clock.millis(), epoch);
        deliver(node, false);
        return command;
    }

    /** Streams what a committed plan queued for node to its agent now, if it is connected here. */
    public void committed(String node) {
        deliver(node, false);
    }

    @Scheduled(every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void deliverQueued() {
        List<String> connected;
        synchronized (this) {
            connected = List.copyOf(streams.keySet());
        }
        connected.forEach(node -> deliver(node, false));
    }

    /** The node's commands from now on, starting with those still unanswered; subscribe on a thread that may block. */
    public Multi<NodeCommand> stream(String node) {
        return Multi.createFrom().emitter(emitter -> {
            synchronized (this) {
                MultiEmitter<? super NodeCommand> previous = streams.put(node, emitter);
                if (previous != null) previous.complete();
            }
            emitter.onTermination(() -> {
                synchronized (this) {
                    streams.remove(node, emitter);
                }
            });
            deliver(node, true);
        });
    }

    private synchronized void deliver(String node, boolean includeSent) {
        MultiEmitter<? super NodeCommand> emitter = streams.get(node);
        if (emitter == null) return;
        for (NodeCommand c : store.unanswered(node, includeSent)) {
            emitter.emit(c);
            store.markSent(c.id(), clock.millis());
        }
    }
}
