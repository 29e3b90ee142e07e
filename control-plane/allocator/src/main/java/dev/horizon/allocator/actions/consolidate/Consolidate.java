package dev.horizon.allocator.actions.consolidate;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.actions.preempt.Price;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.Nodelist;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Consolidation of time-slicing shares (KAI-Scheduler's consolidate action in spirit): shares opened on free GPUs at
 * different times end up one or two to a GPU across many nodes, and a GPU that holds shares of two jobs is freed by
 * neither alone, so no preemption ever frees it and a node with two small actors on it never hosts an 8-GPU job. For
 * each job the earlier actions left waiting that needs whole GPUs on one node, this action looks for the node where
 * moving the shares off some of its GPUs frees the job's block, and moves them only where every moved job fits at once
 * beside the shares other GPUs already hold (so it waits no longer than a step) and the job's {@link Price} gain pays
 * for what they lose. Moved work must be one share, resumable, past its minimum runtime (or fill), not outranking the
 * job and not beyond its team's owed share (fractional work there never runs as fill, so it would not come back). The moved jobs
 * are preempted with a reason that says where they fit; the next decision places them beside held work, first. One
 * move a decision: the room its jobs fit in is theirs until then.
 * MIG instances are not moved: the layout stays behind, and re-partitioning is the slice placer's business.
 */
public final class Consolidate {
    private final Session session;
    private final Occupancy occupancy;
    /** The running jobs holding shares of each time-sliced GPU, movable or not, by node, then GPU. */
    private final Map<Integer, Map<GpuRef, List<RunningJob>>> holders = new LinkedHashMap<>();
    private final Set<RunningJob> movable = new LinkedHashSet<>();
    /**
     * The moves found for what a search reads of a job (its width, rules and weight unit), one per node at most: many
     * waiting jobs ask the same, and nothing changes until a move is made, which ends the action.
     */
    private final Map<Ask, List<Move>> found = new HashMap<>();

    /** What the search for a move reads of a job: weights matter only by whole units ({@link Ranking#outranks}). */
    private record Ask(int gpus, PlacementRules rules, double weightUnit) {
    }

    private Consolidate(Session session) {
        this.session = session;
        this.occupancy = session.occupancy();
        Set<String> preempted = Set.copyOf(session.decision().preemptions());
        for (RunningJob r : session.context().running()) {
            if (!r.placement().shared() || preempted.contains(r.id())) continue;
            boolean timeSliced = true;
            for (Placement.Slice s : r.placement().slices()) {
                if (s.share() == null || s.share().isMig()) timeSliced = false;
                else holders.computeIfAbsent(s.node(), n -> new LinkedHashMap<>())
                        .computeIfAbsent(new GpuRef(s.node(), s.firstGpu()), g -> new ArrayList<>()).add(r);
            }
            if (timeSliced && mayMove(r)) movable.add(r);
        }
    }

    /**
     * A job of one share: the replicas of a wider one must land together as its topology and model rules say, which only
     * the slice placer keeps.
     */
    private boolean mayMove(RunningJob r) {
        return r.placement().slices().size() == 1 && r.contract().resumable() && (r.fill() || !r.protectedAt(session.now())) && !session.staysFill(r.id());
    }

    /** Tries each job the earlier actions left waiting, in the order given; returns those still waiting. */
    public static List<PendingJob> run(Session session, List<PendingJob> stillWaiting) {
        if (!session.occupancy().hasFractional()) return stillWaiting;
        Consolidate action = new Consolidate(session);
        if (action.movable.isEmpty()) return stillWaiting;
        // one move a decision: the room its jobs fit in at once is theirs until the next decision places them
        for (PendingJob j : stillWaiting) {
            boolean wanted = j.slice() == null && !session.onlyAsFill(j.id()) && action.occupancy.fitsOneNode(j.gpus(), j.rules());
            if (wanted && action.tryFor(j)) return stillWaiting.stream().filter(w -> w != j).toList();
        }
        return stillWaiting;
    }

    /** A way to start one job: its block, and the jobs moved off it with the GPUs each fits on at once. */
    private record Move(Placement block, Map<RunningJob, Placement> moved) {
    }

    /** Makes the move that costs least of those j's price pays for; false where none is paid for. */
    private boolean tryFor(PendingJob j) {
        PlanningContext ctx = session.context();
        Price price = Price.of(j, j.gpus(), session.planStartOf(j.id()), ctx.now(), ctx.stepSeconds(),
                ctx.horizonSteps() * ctx.stepSeconds());
        Move best = null;
        double bestLoss = Double.MAX_VALUE;
        for (Move move : found.computeIfAbsent(new Ask(j.gpus(), j.rules(), Math.floor(j.weight())), ask -> moves(j))) {
            List<RunningJob> moved = List.copyOf(move.moved().keySet());
            double loss = price.movingLoss(moved, ctx.stepSeconds());
            if (loss < bestLoss && loss < price.gain()) {
                best = move;
                bestLoss = loss;
            }
        }
        if (best == null) return false;
        String why = price.moved(j, List.copyOf(best.moved().keySet()), ctx.stepSeconds());
        for (Map.Entry<RunningJob, Placement> m : best.moved().entrySet()) {
            occupancy.release(m.getKey().placement());
            session.decision().preempt(m.getKey().id(), why + "; it fits at once on " + Nodelist.of(m.getValue().describe(ctx.cluster())));
        }
        // as value preemption: budgeted work runs protected only where the protected room has it, else as fill
        session.start(j.id(), best.block(), !session.underFairShare() || !session.protectedRoomFor(best.block()));
        return true;
    }

    /** The moves that would start j, one per node of a model it accepts that holds shares. */
    private List<Move> moves(PendingJob j) {
        List<Move> out = new ArrayList<>();
        for (Map.Entry<Integer, Map<GpuRef, List<RunningJob>>> node : holders.entrySet()) {
            int n = node.getKey();
            if (occupancy.isDrained(n) || !j.rules().accepts(occupancy.cluster().nodes().get(n).gpuModel())) continue;
            Move move = moveOn(n, node.getValue(), j);
            if (move != null) out.add(move);
        }
        return out;
    }

    /**
     * On node n: the GPUs whose every share may move for j, fewest shares first, moved off one GPU at a time until j's
     * block is free; then every job holding a share of the block must fit elsewhere at once.
     */
    private Move moveOn(int n, Map<GpuRef, List<RunningJob>> onNode, PendingJob j) {
        List<GpuRef> freeable = new ArrayList<>();
        for (Map.Entry<GpuRef, List<RunningJob>> e : onNode.entrySet()) {
            GpuRef g = e.getKey();
            if (occupancy.migLayout(n, g.gpu()) != null || occupancy.isReconfiguring(n, g.gpu())) continue;
            if (e.getValue().stream().allMatch(r -> movable.contains(r) && !Ranking.outranks(r.weight(), j.weight()))) freeable.add(g);
        }
        if (freeable.isEmpty() || occupancy.freeOn(n) + freeable.size() < j.gpus()) return null;
        freeable.sort(Comparator.comparingInt(g -> onNode.get(g).size()));
        Occupancy trial = occupancy.copy();
        Placement block = null;
        Set<RunningJob> released = new LinkedHashSet<>();
        for (GpuRef g : freeable) {
            for (RunningJob r : onNode.get(g)) if (released.add(r)) trial.release(r.placement());
            block = trial.freeOn(n) < j.gpus() ? null : trial.findBlockOn(n, j.gpus(), j.rules(), NodeOrder.BEST_FIT);
            if (block != null) break;
        }
        if (block == null) return null;
        Map<RunningJob, Placement> moved = landings(block, released);
        return moved == null ? null : new Move(block, moved);
    }

    /**
     * The jobs holding a share of the block, each with the GPU it fits on at once once the block is taken, in value order;
     * null where one does not fit. Released jobs off the block keep their GPUs.
     */
    private Map<RunningJob, Placement> landings(Placement block, Set<RunningJob> released) {
        List<RunningJob> onBlock = new ArrayList<>();
        for (RunningJob r : released) if (r.placement().overlaps(block)) onBlock.add(r);
        onBlock.sort(Comparator.comparingDouble(RunningJob::weight).reversed().thenComparing(RunningJob::id));
        Occupancy trial = occupancy.copy();
        for (RunningJob r : onBlock) trial.release(r.placement());
        trial.occupy(block);
        Map<RunningJob, Placement> out = new LinkedHashMap<>();
        for (RunningJob r : onBlock) {
            Placement.Slice at = besideHeldShares(trial, r, r.placement().slices().get(0));
            if (at == null) return null;
            Placement landing = new Placement(List.of(at));
            trial.occupy(landing);
            out.put(r, landing);
        }
        return out;
    }

    /** The fullest GPU that already holds shares and has room for this one, of a model the job accepts; null if none. */
    private static Placement.Slice besideHeldShares(Occupancy trial, RunningJob r, Placement.Slice s) {
        Cluster cluster = trial.cluster();
        Placement.Slice best = null;
        int bestFree = Integer.MAX_VALUE;
        for (GpuRef g : trial.fractionalGpus()) {
            int n = g.node();
            if (trial.isDrained(n) || !r.rules().accepts(cluster.nodes().get(n).gpuModel())) continue;
            if (trial.sharesOn(n, g.gpu()).isEmpty() || !trial.canHold(n, g.gpu(), s.share())) continue;
            int free = trial.freeMilli(n, g.gpu());
            if (free < bestFree) {
                bestFree = free;
                best = new Placement.Slice(n, g.gpu(), 1, s.share());
            }
        }
        return best;
    }
}
