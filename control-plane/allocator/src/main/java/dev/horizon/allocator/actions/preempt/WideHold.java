package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import java.util.List;
import java.util.function.Supplier;

/**
 * Without fair share, the most valuable wide job that has waited its patience and that no free block can hold has nodes
 * held for it before the plan starts anything: small resumable work that starts there in this decision starts as fill,
 * and fill there is not promoted, so as the protected work on them ends or passes its minimum runtime the nodes come to hold only work
 * value preemption may take, at its price. Unlike holding nodes empty (fair share's {@link NodeHolding}), their GPUs keep
 * working meanwhile. On wide-gangs the plan never drained nodes for a 64-GPU job: every hour its small long-runners ran
 * pushed the first moment eight whole nodes were free later, and new small work refilled them inside its minimum runtime.
 * Each decision chooses again from the moment alone, so both engines hold the same nodes.
 */
public final class WideHold {
    private WideHold() {
    }

    /** The job nodes are held for in this decision, and those nodes (by index). */
    public record Held(PendingJob job, List<Integer> nodes) {
    }

    /** Holds nodes for the most valuable waiting wide job, if one waits for them; returns what it held (null: nothing). */
    public static Held run(Session session) {
        if (session.underFairShare()) return null;
        Occupancy occupancy = session.occupancy();
        PendingJob wide = mostValuableWaitingWideJob(session, occupancy);
        if (wide == null) return null;
        int[] stuck = stuckGpus(session, occupancy, wide);
        List<Integer> held = NodeHolding.toHold(occupancy, wide, stuck);
        if (held.stream().mapToInt(n -> occupancy.cluster().nodes().get(n).gpus()).sum() < wide.gpus()) return null;
        session.holdForWideJob(held);
        return new Held(wide, held);
    }

    /** After the decision's other actions: the held-for job, if it still waits, is told its nodes are held. */
    public static void explain(Session session, Held held) {
        Supplier<String> before = held == null ? null : session.decision().waitReasonOf(held.job().id());
        if (before == null) return;
        List<String> names = held.nodes().stream().map(n -> session.context().cluster().nodes().get(n).name()).toList();
        session.decision().waiting(held.job().id(), () -> before.get() + "; " + Ranking.upToThree(names) + " held for it: small work starting there starts as fill it may take back");
    }

    /**
     * The first resumable job in value order that no one node holds and that has waited its patience, where it finds no
     * free block (null otherwise). One pass, not a sort: every decision of every future asks it of every waiting job.
     */
    private static PendingJob mostValuableWaitingWideJob(Session session, Occupancy occupancy) {
        PendingJob first = null;
        for (PendingJob j : session.context().pending()) {
            if (j.arrivalSeconds() > session.now() - Preemption.WIDE_JOB_PATIENCE_SECONDS || j.slice() != null || !j.contract().resumable()) continue;
            if (occupancy.fitsOneNode(j.gpus(), j.rules())) continue;
            if (first == null || Ranking.VALUE_ORDER.compare(j, first) < 0) first = j;
        }
        return first == null || occupancy.findBlock(first.gpus(), first.rules(), NodeOrder.BEST_FIT) != null ? null : first;
    }

    /** Per node, the busy GPUs the wide job could not take now: inference, and running work that is protected or not outranked. */
    private static int[] stuckGpus(Session session, Occupancy occupancy, PendingJob wide) {
        int nodes = occupancy.cluster().nodes().size();
        int[] stuck = new int[nodes];
        for (int n = 0; n < nodes; n++) stuck[n] = occupancy.cluster().nodes().get(n).gpus() - occupancy.freeOn(n);
        for (RunningJob r : session.context().running()) {
            boolean movable = (r.fill() || !r.protectedAt(session.now())) && Ranking.outranks(wide.weight(), r.weight());
            if (!movable) continue;
            for (Placement.Slice s : r.placement().slices()) stuck[s.node()] -= s.count();
        }
        return stuck;
    }
}
