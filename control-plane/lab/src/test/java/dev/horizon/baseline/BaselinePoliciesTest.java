package dev.horizon.baseline;

import static dev.horizon.baseline.Moments.at;
import static dev.horizon.baseline.Moments.running;
import static dev.horizon.baseline.Moments.waiting;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.RunningJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The rule each of kai, kueue and slurm is known by, on moments small enough to work out by hand. */
class BaselinePoliciesTest {
    private static final Cluster ONE_NODE = Cluster.homogeneous(8, 8, "H100-80GB", 81_559);
    private static final Cluster TWO_NODES = Cluster.homogeneous(8, 4, "H100-80GB", 81_559);

    private static Set<String> started(Decision d) {
        return d.starts().stream().map(Decision.Start::jobId).collect(Collectors.toSet());
    }

    /** Team a runs eight 1-GPU jobs (weights 1..8, started at 0) on one 8-GPU node; team b waits for 2 GPUs. */
    private static PlanningContext teamAHoldsEverything(long now, double waitingWeight) {
        List<RunningJob> a = new ArrayList<>();
        for (int g = 0; g < 8; g++) a.add(running("a" + g, "a", 1 + g, 0, g, 1, 0, now + 7200));
        return at(now, ONE_NODE, a, List.of(waiting("b", "b", waitingWeight, 2, 3600)));
    }

    @Test
    void kaiReclaimsFromAQueueAboveItsFairShareButNotInsideTheMinimumRuntime() {
        Decision d = new KaiPolicy().decide(teamAHoldsEverything(3600, 1));
        // fair shares: a 6, b 2 (quota 4 each, a takes what b leaves); a holds 8, so b reclaims 2 GPUs, the cheapest block
        assertEquals(Set.of("b"), started(d));
        assertEquals(2, d.preemptions().size(), d.preemptions().toString());
        Decision early = new KaiPolicy().decide(teamAHoldsEverything(600, 1));
        assertTrue(early.starts().isEmpty() && early.preemptions().isEmpty(), "the min-runtime plugin protects a's work for 30 minutes");
    }

    @Test
    void kaiConsolidatesFragmentedWorkSoAWaitingJobFits() {
        PlanningContext ctx = at(3600, TWO_NODES, List.of(running("x", "a", 1, 0, 0, 2, 0, 9000), running("y", "a", 1, 1, 0, 2, 0, 9000)),
                List.of(waiting("z", "a", 1, 4, 3600)));
        Decision d = new KaiPolicy().decide(ctx);
        assertEquals(1, d.preemptions().size(), "one 2-GPU job moves");
        assertEquals(Set.of("z", d.preemptions().get(0)), started(d), "the moved job lands at once beside the other");
    }

    @Test
    void kueueSpreadsPodsAsKubeSchedulerDoesWhileKaiPacks() {
        PlanningContext kueue = at(0, TWO_NODES, List.of(running("r", "a", 1, 0, 0, 1, 0, 9000)), List.of(waiting("w", "a", 1, 1, 3600)));
        assertEquals(1, new KueuePolicy().decide(kueue).starts().get(0).placement().slices().get(0).node(), "least allocated node");
        PlanningContext kai = at(0, TWO_NODES, List.of(running("r", "a", 1, 0, 0, 1, 0, 9000)), List.of(waiting("w", "a", 1, 1, 3600)));
        assertEquals(0, new KaiPolicy().decide(kai).starts().get(0).placement().slices().get(0).node(), "bin-packing");
    }

    @Test
    void kueueReclaimsWithinTheCohortFromABorrowingQueueWhateverItsPriority() {
        Decision d = new KueuePolicy().decide(teamAHoldsEverything(3600, 1));
        assertEquals(Set.of("b"), started(d), "b fits in its nominal quota of 4; a borrows 4 beyond its own");
        assertTrue(d.preemptions().stream().allMatch(id -> id.startsWith("a")) && !d.preemptions().isEmpty(), d.preemptions().toString());
    }

    @Test
    void slurmBackfillsOnlyWhatEndsBeforeTheTopJobsReservation() {
        // 4 GPUs busy for 2 more hours; the top job needs all 8, so it holds them from then on
        PlanningContext ctx = at(0, ONE_NODE, List.of(running("r", "a", 8, 0, 0, 4, -3600, 7200)),
                List.of(waiting("top", "a", 8, 8, 3600), waiting("long", "a", 1, 4, 3 * 3600), waiting("short", "a", 1, 4, 3600)));
        Decision d = new SlurmPolicy().decide(ctx);
        assertEquals(Set.of("short"), started(d), "the 1-hour job ends before the reservation; the 3-hour one would delay it");
    }

    @Test
    void slurmRequeuesLowerQosWorkOnlyPastItsExemptTime() {
        Decision late = new SlurmPolicy().decide(teamAHoldsEverything(3600, 8.5));
        assertEquals(Set.of("b"), started(late));
        assertEquals(Set.of("a0", "a1"), Set.copyOf(late.preemptions()), "the two lowest QOS on one block");
        Decision early = new SlurmPolicy().decide(teamAHoldsEverything(600, 8.5));
        assertTrue(early.starts().isEmpty() && early.preemptions().isEmpty(), "PreemptExemptTime = the minimum runtime");
    }
}
