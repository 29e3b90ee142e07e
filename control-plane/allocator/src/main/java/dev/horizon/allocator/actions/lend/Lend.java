package dev.horizon.allocator.actions.lend;

import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.placement.NodeOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lends what protected work left idle to resumable jobs, as fill that inference and budgeted work take back when they need
 * it; an elastic job may borrow at a narrower width. Under fair share the most under-served teams borrow first: idle GPUs
 * are the only way a team whose jobs do not fit its room catches up, and lending by user priority would hand them to
 * whichever team inflates its priorities.
 */
public final class Lend {
    private Lend() {
    }

    public static void run(Session session, List<PendingJob> stillWaiting) {
        run(session, stillWaiting, true);
    }

    /** As {@link #run(Session, List)}; skipRepeats false: every width is searched for, even one not found (tests compare). */
    public static void run(Session session, List<PendingJob> stillWaiting, boolean skipRepeats) {
        List<PendingJob> order = new ArrayList<>(stillWaiting);
        if (session.underFairShare()) {
            Map<String, Double> ratio = session.fairShare().ratio();
            order.sort(Comparator.comparingDouble((PendingJob j) -> Math.min(1, ratio.getOrDefault(j.team(), 1.0))).thenComparing(Ranking.VALUE_ORDER));
        }
        // a block not found is not found again until a start changes the occupancy: those searches are not repeated
        Set<Width> notFound = new HashSet<>();
        for (PendingJob j : order) {
            // fill must be cheap to take back; fair share's unallocated work is fill whatever it loses
            if (!j.contract().resumable() && !session.onlyAsFill(j.id())) continue;
            Placement placement = null;
            for (int width : j.allowedSizes()) {
                Width asked = new Width(width, j.rules());
                if (skipRepeats && notFound.contains(asked)) continue;
                placement = session.occupancy().findBlock(width, j.rules(), NodeOrder.BEST_FIT);
                if (placement != null) break;
                notFound.add(asked);
            }
            if (placement == null) continue;
            session.start(j.id(), placement, true);
            notFound.clear();
        }
    }

    /** What a block search reads of the job. */
    private record Width(int gpus, PlacementRules rules) {
        @Override
        public int hashCode() {
            return gpus * 31 + PlacementRules.scalarHash(rules);
        }
    }
}
