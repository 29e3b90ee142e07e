package dev.horizon.allocator.actions.drain;

import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.List;

/**
 * Work on a drained (unhealthy) node leaves once its contract allows: outside its minimum runtime it is preempted to
 * restart elsewhere, and the session no longer counts it as running. Protected work stays until its minimum runtime ends.
 */
public final class LeaveDrainedNodes {
    private LeaveDrainedNodes() {
    }

    public static void run(Session session) {
        List<RunningJob> staying = new ArrayList<>();
        for (RunningJob r : session.context().running()) {
            boolean onDrained = r.placement().slices().stream().anyMatch(s -> session.occupancy().isDrained(s.node()));
            if (onDrained && !r.protectedAt(session.now())) {
                session.decision().preempt(r.id());
                session.occupancy().release(r.placement());
            } else {
                staying.add(r);
            }
        }
        session.keepRunning(staying);
    }
}
