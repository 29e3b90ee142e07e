package dev.horizon.allocator.actions.preempt;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Value preemption: a waiting resumable job takes GPUs from running work it outranks that its contract leaves
 * preemptible (past its minimum runtime, or fill; work that cannot resume too, losing all it ran, which its price
 * counts); it starts as fill and is promoted to protected on a later plan when the protected capacity has room for it. Without fair share, work that cannot resume starts only where the
 * plan put it. Under fair share, work inside its team's owed share is budgeted and runs protected whether or not it can
 * resume (as fill where protected work would stand in the inference reservation); it takes its GPUs from work it
 * outranks, and a wide one that still finds no room has nodes held for it. Without fair share a preemption happens only
 * where it pays its {@link Price}; under fair share work inside its owed share takes back what its team is owed unpriced.
 */
public final class ValuePreemption {
    private ValuePreemption() {
    }

    /** Tries each job the plan did not start now, in the order given; returns those still waiting. */
    public static List<PendingJob> run(Session session, List<PendingJob> notStarted) {
        return run(session, notStarted, true);
    }

    /** As {@link #run(Session, List)}; skipRepeats false: every job is searched for, even as one that failed (tests compare). */
    public static List<PendingJob> run(Session session, List<PendingJob> notStarted, boolean skipRepeats) {
        Occupancy occupancy = session.occupancy();
        VictimPool preemptible = new VictimPool(preemptible(session), session.now());
        List<PendingJob> stillWaiting = new ArrayList<>();
        boolean nodesHeld = false;
        boolean budgeted = session.underFairShare();
        // a search fails again while nothing it reads has changed: the occupancy and the pool change only when a job
        // starts or nodes are held, so the searches that failed since are not repeated for jobs that ask the same; such a
        // job would find the same victim sets, all turned down, so it fails too unless it gains more than the cheapest
        // of them loses at its own price (none: no victims free the GPUs at all)
        Map<Preemption.Ask, List<List<RunningJob>>> failed = new HashMap<>();
        for (PendingJob j : notStarted) {
            // unallocated work outranks nobody: it only borrows idle GPUs, in the lending order
            if (session.onlyAsFill(j.id())) {
                stillWaiting.add(j);
                continue;
            }
            Placement placement = null;
            if (j.contract().resumable() || budgeted) {
                Price price = budgeted ? Price.OWED : priceOf(session, j);
                Preemption.Ask ask = Preemption.Ask.of(j, j.gpus(), preemptible);
                List<List<RunningJob>> refused = failed.get(ask);
                Price.Loss cheapest = refused == null ? null : price.cheapest(refused);
                if (!skipRepeats || refused == null || (cheapest != null && price.gain() > cheapest.total())) {
                    placement = Preemption.place(occupancy, j, j.gpus(), preemptible, session.decision(), price);
                    refused = price.refused();
                    cheapest = price.cheapest(refused);
                }
                if (placement == null) {
                    failed.put(ask, refused);
                    if (cheapest != null) explainRefusal(session, j, price, cheapest);
                }
            }
            if (placement == null) {
                if (budgeted && !nodesHeld && !occupancy.fitsOneNode(j.gpus(), j.rules())
                        && j.arrivalSeconds() <= session.now() - Preemption.WIDE_JOB_PATIENCE_SECONDS) {
                    NodeHolding.holdNodesFor(j, occupancy, preemptible, session.context().running(), session.decision());
                    nodesHeld = true;
                    failed.clear();
                }
                stillWaiting.add(j);
                continue;
            }
            // budgeted work runs protected only where the protected room has it; else as fill, promoted once there is
            session.start(j.id(), placement, !budgeted || !session.protectedRoomFor(placement));
            failed.clear();
        }
        return stillWaiting;
    }

    /** The price of starting j now against the start the plan gave it (see {@link Price}). */
    private static Price priceOf(Session session, PendingJob j) {
        PlanningContext ctx = session.context();
        return Price.of(j, j.gpus(), session.planStartOf(j.id()), ctx.now(), ctx.stepSeconds(),
                ctx.horizonSteps() * ctx.stepSeconds());
    }

    /** The job's wait reason says what preempting would have gained and cost. */
    private static void explainRefusal(Session session, PendingJob j, Price price, Price.Loss refused) {
        double gain = price.gain();
        long advance = price.advanceSeconds();
        Supplier<String> before = session.decision().waitReasonOf(j.id());
        session.decision().waiting(j.id(), () -> (before == null ? "" : before.get() + "; ") + Price.refusal(gain, advance, refused));
    }

    /**
     * Whether taking this fractional placement back frees whole GPUs: it holds every share of each GPU it is on, and they
     * are time-slicing shares (a MIG instance leaves its layout behind). Such a job keeps a GPU as surely as a whole-GPU
     * job does, so it is preemptible like one: a long slice job would otherwise keep a node from ever hosting wide work.
     */
    static boolean holdsWholeGpus(Occupancy occupancy, Placement placement) {
        Map<GpuRef, Integer> own = new HashMap<>();
        for (Placement.Slice s : placement.slices()) {
            if (s.share() == null) continue;
            if (s.share().isMig()) return false;
            own.merge(new GpuRef(s.node(), s.firstGpu()), 1, Integer::sum);
        }
        for (Map.Entry<GpuRef, Integer> e : own.entrySet()) {
            GpuRef g = e.getKey();
            if (occupancy.migLayout(g.node(), g.gpu()) != null || occupancy.sharesOn(g.node(), g.gpu()).size() != e.getValue()) return false;
        }
        return true;
    }

    /**
     * Running work this action may take GPUs from: fill still running, and work past its minimum runtime. Work that cannot
     * resume is among it: kept out, it held nodes a wide job needed for hours (philly seed 73, day 7: a 32-GPU job of
     * weight 8 started 2.9 h after Slurm-like's, which requeued such work), and the price weighs all it would lose.
     */
    private static List<RunningJob> preemptible(Session session) {
        List<RunningJob> out = new ArrayList<>();
        for (RunningJob r : session.context().running()) {
            if (r.placement().shared() && !holdsWholeGpus(session.occupancy(), r.placement())) continue; // freeing one slice frees no GPU
            boolean fillStillThere = r.fill() && !session.decision().preemptions().contains(r.id())
                    && !session.decision().promotions().contains(r.id());
            if (fillStillThere || (!r.fill() && !r.protectedAt(session.now()))) out.add(r);
        }
        return out;
    }
}
