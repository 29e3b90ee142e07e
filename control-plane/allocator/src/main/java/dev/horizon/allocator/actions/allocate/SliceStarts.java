package dev.horizon.allocator.actions.allocate;

import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.placement.SlicePlacer;

/** Commits what the slice placer found for one fractional job. */
final class SliceStarts {
    private SliceStarts() {
    }

    /**
     * A start, or a re-partitioning the job waits for (the GPU is held for it), or, when always is set, the wait with
     * its reason. Returns whether the job was dealt with.
     */
    static boolean apply(SlicePlacer.Outcome o, PendingJob j, Session session, boolean always) {
        if (o.placement() != null && !session.protectedRoomFor(o.placement())) {
            // slices never run as fill (taking one back frees no GPU), so one that would open a GPU the room lacks waits
            if (always) session.decision().waiting(j.id(), "the GPUs it would open are the inference reservation's, or held by protected work");
            return always;
        }
        if (o.placement() != null) {
            session.start(j.id(), o.placement(), false);
            return true;
        }
        if (o.reconfigure() != null) {
            session.occupancy().markReconfiguring(o.reconfigure().node(), o.reconfigure().gpu(), o.reconfigure().layout());
            session.decision().reconfigure(o.reconfigure());
            session.decision().waiting(j.id(), o.reason());
            return true;
        }
        if (o.awaitsLayout()) {
            session.decision().waiting(j.id(), o.reason());
            return true;
        }
        if (always) session.decision().waiting(j.id(), o.reason());
        return always;
    }
}
