package dev.horizon.allocator.actions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.allocate.Allocate;
import dev.horizon.allocator.actions.drain.LeaveDrainedNodes;
import dev.horizon.allocator.actions.lend.Lend;
import dev.horizon.allocator.actions.preempt.ValuePreemption;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.FairShareView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Preemption and lending skip a search that failed while nothing it reads has changed (issue 35: most of what a start
 * band's futures cost at 10,000 GPUs). On random crowded moments, with and without fair share, a decision made so is the
 * decision made searching for every job.
 */
class RepeatedSearchesTest {
    private static final long NOW = 100_000;
    private static final String[] MODELS = {"H100-80GB", "A100-80GB"};
    private static final int[] WIDTHS = {1, 1, 2, 4, 8, 16};

    @Test
    void skippingRepeatedFailedSearchesDecidesWhatSearchingForEveryJobDecides() {
        Random rng = new Random(3);
        int preempted = 0, lent = 0;
        for (int trial = 0; trial < 150; trial++) {
            long seed = rng.nextLong();
            Decision fast = decide(seed, true), plain = decide(seed, false);
            assertEquals(plain.starts(), fast.starts(), "trial " + trial);
            assertEquals(plain.preemptions(), fast.preemptions(), "trial " + trial);
            assertEquals(plain.waitReasons(), fast.waitReasons(), "trial " + trial);
            assertEquals(plain.promotions(), fast.promotions(), "trial " + trial);
            preempted += plain.preemptions().size();
            lent += (int) plain.starts().stream().filter(Decision.Start::fill).count();
        }
        // the moments are crowded enough that jobs take GPUs from others and borrow idle ones
        assertTrue(preempted > 50 && lent > 50, preempted + " preempted, " + lent + " lent");
    }

    /** One decision on the moment the seed draws, as HorizonPolicy makes it, the repeated searches skipped or not. */
    private static Decision decide(long seed, boolean skipRepeats) {
        Session session = Session.open(moment(new Random(seed)));
        LeaveDrainedNodes.run(session);
        List<PendingJob> notStarted = new Allocate(0.99, new HeuristicPlanner()::plan).run(session);
        // preemption tries jobs in the order given, whatever it is: a lighter job before a heavier one asking the same
        if (seed % 2 == 0) Collections.shuffle(notStarted, new Random(seed));
        Lend.run(session, ValuePreemption.run(session, notStarted, skipRepeats), skipRepeats);
        return session.decision();
    }

    /** Nodes of two models, busy with work of every weight and contract; more work waiting, some of it wide. */
    private static PlanningContext moment(Random rng) {
        List<GpuNode> nodes = new ArrayList<>();
        for (int n = 0; n < 4 + rng.nextInt(8); n++) nodes.add(new GpuNode("n" + n, MODELS[rng.nextInt(2)], 8, 81_559, "d" + n / 2));
        Cluster cluster = new Cluster(nodes);
        Occupancy occupancy = new Occupancy(cluster);
        List<RunningJob> running = new ArrayList<>();
        // from nearly full to about half idle: a wide job that has waited may take GPUs from work it does not outrank
        int leftFree = (int) (cluster.totalGpus() * (0.05 + rng.nextDouble() * 0.5));
        for (int i = 0; i < 40; i++) {
            Placement p = occupancy.findBlock(WIDTHS[rng.nextInt(WIDTHS.length - 1)], PlacementRules.ANY, dev.horizon.allocator.placement.NodeOrder.BEST_FIT);
            if (p == null || occupancy.totalFree() - p.gpuCount() < leftFree) break;
            occupancy.occupy(p);
            long start = NOW - rng.nextInt(7200);
            running.add(new RunningJob("r" + i, "t" + rng.nextInt(3), JobClass.TRAINING, weight(rng), p.gpuCount(), start - 60, start,
                    start + 600 + rng.nextInt(14_400), contract(rng), p, rng.nextInt(5) == 0, PlacementRules.ANY));
        }
        List<PendingJob> pending = new ArrayList<>();
        for (int i = 0; i < 10 + rng.nextInt(50); i++) {
            int gpus = WIDTHS[rng.nextInt(WIDTHS.length)];
            PlacementRules rules = rng.nextInt(3) == 0 ? PlacementRules.ANY.withGpuTypes(Set.of(MODELS[rng.nextInt(2)])) : PlacementRules.ANY;
            pending.add(PendingJob.builder().id("p" + i).team("t" + rng.nextInt(3)).jobClass(JobClass.TRAINING).weight(weight(rng) + 1).gpus(gpus)
                    .minGpus(rng.nextInt(4) == 0 ? 1 : gpus).arrivalSeconds(NOW - rng.nextInt(3 * 3600)).estimatedRemainingSeconds(600 + rng.nextInt(8 * 3600))
                    .contract(contract(rng)).rules(rules).build());
        }
        pending.sort(Ranking.VALUE_ORDER);
        FairShareView fairShare = null;
        if (rng.nextBoolean()) {
            BudgetTree tree = new BudgetTree(List.of(new BudgetTree.Budget("t0", null, 0.5), new BudgetTree.Budget("t1", null, 0.3),
                    new BudgetTree.Budget("t2", null, 0.2)));
            double total = cluster.totalGpus();
            fairShare = new FairShareView(tree, Map.of("t0", total * rng.nextDouble(), "t1", total * 0.3, "t2", total * rng.nextDouble() * 0.2),
                    Map.of("t0", rng.nextDouble(), "t1", 1.0, "t2", 0.5 + rng.nextDouble()));
        }
        return new PlanningContext(NOW, 900, 16, cluster, occupancy, running, pending, Map.of(), fairShare);
    }

    /** Priority classes and, as fair share and user priority give them, fractions within a class. */
    private static double weight(Random rng) {
        return 1 + rng.nextInt(4) + (rng.nextBoolean() ? rng.nextInt(10) / 10.0 : 0);
    }

    private static Contract contract(Random rng) {
        return rng.nextInt(4) == 0 ? new Contract(0, false, 0) : new Contract(rng.nextBoolean() ? 1800 : 0, true, 120);
    }
}
