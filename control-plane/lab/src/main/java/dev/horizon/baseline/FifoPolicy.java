package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.placement.NodeOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * First come, first served with inference reserved at its daily peak (the references' baseline).
 * Strict order: when the oldest job does not fit, nothing behind it starts.
 */
public final class FifoPolicy extends PeakReservingPolicy {
    static final Comparator<PendingJob> ARRIVAL_ORDER = Comparator.comparingLong(PendingJob::arrivalSeconds).thenComparing(PendingJob::id);

    @Override
    public String name() {
        return "fifo";
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        Decision decision = new Decision();
        List<PendingJob> queue = new ArrayList<>(ctx.pending());
        queue.sort(ARRIVAL_ORDER);
        int partition = PeakReservation.batchPartition(ctx);
        String blockedBy = null;
        for (PendingJob j : queue) {
            if (j.gpus() > partition) {
                decision.waiting(j.id(), "needs " + j.gpus() + " GPUs but only " + partition + " are outside the inference peak reservation");
                continue;
            }
            if (blockedBy != null) {
                decision.waiting(j.id(), "behind " + blockedBy + " in the FIFO queue");
                continue;
            }
            Placement p = DevicePluginSlices.place(j, j.gpus(), ctx.occupancy(), NodeOrder.BEST_FIT, false);
            if (p == null) {
                blockedBy = j.id();
                decision.waiting(j.id(), "head of the queue: waiting for " + j.gpus() + " GPUs");
                continue;
            }
            ctx.occupancy().occupy(p);
            decision.start(j.id(), p, false);
        }
        return decision;
    }
}
