package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * FIFO with EASY backfill, as Slurm does it: the oldest waiting job gets a reservation at the
 * earliest time enough GPUs free up (by estimates); a later job may jump ahead if it ends before that
 * time or uses only GPUs the reservation does not need. Inference holds its daily peak.
 */
public final class BackfillPolicy extends PeakReservingPolicy {
    @Override
    public String name() {
        return "backfill";
    }

    @Override
    public Decision decide(PlanningContext ctx) {
        Decision decision = new Decision();
        List<PendingJob> queue = new ArrayList<>(ctx.pending());
        queue.sort(FifoPolicy.ARRIVAL_ORDER);
        int partition = PeakReservation.batchPartition(ctx);
        PendingJob head = null;
        long shadowTime = Long.MAX_VALUE;
        int extraGpus = 0;
        for (PendingJob j : queue) {
            if (j.gpus() > partition) {
                decision.waiting(j.id(), "needs " + j.gpus() + " GPUs but only " + partition + " are outside the inference peak reservation");
                continue;
            }
            Placement p = DevicePluginSlices.place(j, j.gpus(), ctx.occupancy(), NodeOrder.BEST_FIT, false);
            if (head == null) {
                if (p != null) {
                    ctx.occupancy().occupy(p);
                    decision.start(j.id(), p, false);
                    continue;
                }
                head = j;
                long[] shadow = shadow(ctx, j.gpus());
                shadowTime = shadow[0];
                extraGpus = (int) shadow[1];
                decision.waiting(j.id(), "oldest job: GPUs reserved for it from t=" + shadowTime + " s");
                continue;
            }
            boolean endsBeforeShadow = ctx.now() + j.estimatedRemainingSeconds() <= shadowTime;
            if (p != null && (endsBeforeShadow || j.gpus() <= extraGpus)) {
                if (!endsBeforeShadow) extraGpus -= j.gpus();
                ctx.occupancy().occupy(p);
                decision.start(j.id(), p, false);
            } else {
                decision.waiting(j.id(), "cannot backfill without delaying " + head.id());
            }
        }
        return decision;
    }

    /** {time when the head job's GPUs are free by estimates, GPUs spare at that time}. */
    private static long[] shadow(PlanningContext ctx, int gpus) {
        List<RunningJob> byEnd = new ArrayList<>(ctx.running());
        byEnd.sort(Comparator.comparingLong(RunningJob::estimatedEndSeconds));
        int free = ctx.occupancy().totalFree();
        for (RunningJob r : byEnd) {
            free += r.gpus();
            if (free >= gpus) return new long[] {Math.max(ctx.now(), r.estimatedEndSeconds()), free - gpus};
        }
        return new long[] {Long.MAX_VALUE, 0};
    }
}
