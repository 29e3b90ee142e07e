package dev.horizon.allocator.cpsat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.plan.Plan;
import dev.horizon.allocator.plan.PlanProblem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CpSatPlannerTest {

    @Test
    void beatsGreedyWhereValueOrderIsSuboptimal() {
        // greedy takes A (3 x 4 x 2 = 24) and then neither B nor C fits; B + C give 2 x (2 x 4 x 1.9) = 30.4
        PlanProblem p = problem(4, 1.0, new int[] {4}, 4, List.of(
                new PlanProblem.Job("A", 2.0, 3, 4),
                new PlanProblem.Job("B", 1.9, 2, 4),
                new PlanProblem.Job("C", 1.9, 2, 4)));
        assertEquals(24.0, new HeuristicPlanner().plan(p).objective(), 1e-9);

        CpSatPlanner planner = new CpSatPlanner(2.0, 10);
        Plan plan = planner.apply(p);

        assertEquals(Map.of("B", 0, "C", 0), plan.startStep());
        assertEquals(30.4, plan.objective(), 1e-9);
        CpSatPlanner.Stats stats = planner.lastStats();
        assertTrue(stats.improved());
        assertEquals(24.0, stats.hintObjective(), 1e-9);
        assertEquals(30.4, stats.objective(), 1e-9);
        assertEquals("OPTIMAL", stats.status());
        assertFeasible(p, plan);
    }

    @Test
    void neverWorseThanHeuristicAndAlwaysFeasibleOnRandomProblems() {
        HeuristicPlanner heuristic = new HeuristicPlanner();
        // fewer modelled jobs than jobs, so the ones outside the model keep their heuristic starts
        CpSatPlanner planner = new CpSatPlanner(0.5, 8);
        for (long seed = 1; seed <= 6; seed++) {
            PlanProblem p = randomProblem(new Random(seed));
            Plan hint = heuristic.plan(p);
            Plan plan = planner.apply(p);
            assertTrue(plan.objective() >= hint.objective() - 1e-9,
                    "seed " + seed + ": " + plan.objective() + " < heuristic " + hint.objective());
            assertEquals(hint.objective(), planner.lastStats().hintObjective(), 1e-9);
            assertEquals(plan.objective(), planner.lastStats().objective(), 1e-9);
            assertFeasible(p, plan);
        }
    }

    @Test
    void relaxedNodePackingIsCheckedAndTiesKeepTheHeuristicPlan() {
        // 8 GPUs in total hold A + B + C, but two 4-GPU nodes cannot: after A and B each node has 1 free
        PlanProblem p = problem(2, 1.0, new int[] {4, 4}, 8, List.of(
                new PlanProblem.Job("A", 3.0, 3, 2),
                new PlanProblem.Job("B", 3.0, 3, 2),
                new PlanProblem.Job("C", 2.0, 2, 2)));
        Plan hint = new HeuristicPlanner().plan(p);

        CpSatPlanner planner = new CpSatPlanner(1.0, 10);
        Plan plan = planner.apply(p);

        assertFalse(nodesHold(p, new Plan(Map.of("A", 0, "B", 0, "C", 0), 44.0)));
        assertEquals(hint.startStep(), plan.startStep());
        assertEquals(36.0, plan.objective(), 1e-9);
        assertFalse(planner.lastStats().improved());
        assertFeasible(p, plan);
    }

    @Test
    void aSolverPlanRecordsTheJobsTheStartNowCautionHoldsAsTheHeuristicDoes() {
        // one 10-GPU node; the protected capacity dips to 8 in steps 2-5. Greedy takes A (7 GPUs, the whole horizon: 159.0)
        // and then neither B nor C fits; B + C give 172.7 and leave 2 GPUs free now and from step 6. Rewards decay, so
        // D's earliest start is its only best one
        int h = 12;
        int[] capacity = new int[h];
        for (int t = 0; t < h; t++) capacity[t] = t >= 2 && t < 6 ? 8 : 10;
        int[][] nodeFree = new int[1][h];
        Arrays.fill(nodeFree[0], 10);
        PlanProblem p = new PlanProblem(h, 0.99, new int[] {10}, capacity, nodeFree, List.of(
                new PlanProblem.Job("A", 2.0, 7, h),
                new PlanProblem.Job("B", 1.9, 4, h),
                new PlanProblem.Job("C", 1.9, 4, h),
                new PlanProblem.Job("D", 0.1, 2, 1)), null, null, 8);

        CpSatPlanner planner = new CpSatPlanner(2.0, 10);
        Plan plan = planner.apply(p);

        assertTrue(planner.lastStats().improved());
        assertEquals(Map.of("B", 0, "C", 0, "D", 1), plan.startStep());
        assertEquals(Map.of("D", 6), plan.heldByCaution(),
                "D fits now for its one-step estimate, but its run of eight estimates meets the dip: the caution alone holds it");
        assertEquals(6, plan.toldStep("D"), "it is told the step its cautious run first fits, not the gap's step 1, where it would be held again");
    }

    @Test
    void nothingFitsGivesEmptyPlan() {
        PlanProblem p = problem(3, 0.99, new int[] {4}, 2, List.of(
                new PlanProblem.Job("wide", 5.0, 3, 2),
                new PlanProblem.Job("wider", 1.0, 6, 1)));

        CpSatPlanner planner = new CpSatPlanner(1.0, 10);
        Plan plan = planner.apply(p);

        assertTrue(plan.startStep().isEmpty());
        assertEquals(0.0, plan.objective(), 0.0);
        assertNotNull(planner.lastStats());
        assertFalse(planner.lastStats().improved());
        assertEquals(0.0, planner.lastStats().objective(), 0.0);
    }

    private static PlanProblem problem(int h, double decay, int[] nodeSizes, int capacity, List<PlanProblem.Job> jobs) {
        int[] cap = new int[h];
        Arrays.fill(cap, capacity);
        int[][] nodeFree = new int[nodeSizes.length][h];
        for (int n = 0; n < nodeSizes.length; n++) Arrays.fill(nodeFree[n], nodeSizes[n]);
        return new PlanProblem(h, decay, nodeSizes, cap, nodeFree, jobs);
    }

    /**
     * Three 8-GPU nodes with inherited work early on, a varying reservation, and jobs up to 12 GPUs wide,
     * a third of them elastic down to a quarter of their width.
     */
    private static PlanProblem randomProblem(Random rnd) {
        int h = 12;
        int[] nodeSizes = {8, 8, 8};
        int[][] nodeFree = new int[nodeSizes.length][h];
        for (int n = 0; n < nodeSizes.length; n++) {
            int busy = rnd.nextInt(nodeSizes[n] + 1);
            int until = rnd.nextInt(h);
            for (int t = 0; t < h; t++) nodeFree[n][t] = nodeSizes[n] - (t < until ? busy : 0);
        }
        int[] capacity = new int[h];
        for (int t = 0; t < h; t++) {
            int free = 0;
            for (int[] f : nodeFree) free += f[t];
            capacity[t] = free - rnd.nextInt(7);
        }
        int[] widths = {1, 2, 3, 4, 5, 6, 8, 12};
        List<PlanProblem.Job> jobs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            int gpus = widths[rnd.nextInt(widths.length)];
            int minGpus = rnd.nextInt(3) == 0 ? Math.max(1, gpus / 4) : gpus;
            jobs.add(new PlanProblem.Job("j" + i, 0.5 + rnd.nextInt(20) / 4.0, gpus, 1 + rnd.nextInt(8), minGpus));
        }
        jobs.sort(Comparator.comparingDouble(PlanProblem.Job::weight).reversed());
        return new PlanProblem(h, 0.99, nodeSizes, capacity, nodeFree, jobs);
    }

    /**
     * Independent of the planners' placement rules: starts lie in the horizon, the objective is the sum of
     * rewards, protected capacity holds every step, and some split of each job over nodes, fixed for its
     * whole run and on one node for a job no wider than a node, keeps every node within its free GPUs at
     * every step (found by exhaustive search). An elastic job counts at the width the plan gives it, which
     * must lie between its minimum and its asked width.
     */
    private static void assertFeasible(PlanProblem p, Plan plan) {
        int h = p.horizonSteps();
        double objective = 0;
        int[] used = new int[h];
        for (PlanProblem.Job asked : p.jobs()) {
            int width = plan.gpusOf(asked.id(), asked.gpus());
            assertTrue(width >= asked.minGpus() && width <= asked.gpus(), asked.id() + " planned " + width + " wide");
        }
        for (PlanProblem.Job job : planned(p, plan)) {
            int s = plan.startStep().get(job.id());
            assertTrue(s >= 0 && s < h, job.id() + " starts outside the horizon at " + s);
            objective += p.reward(job, s);
            for (int t = s; t < Math.min(h, s + job.durationSteps()); t++) used[t] += job.gpus();
        }
        assertEquals(objective, plan.objective(), 1e-6);
        for (int t = 0; t < h; t++) {
            assertTrue(used[t] <= p.capacity()[t], "step " + t + ": " + used[t] + " GPUs > capacity " + p.capacity()[t]);
        }
        assertTrue(nodesHold(p, plan), "no node assignment fits " + plan.startStep());
    }

    /** The jobs the plan places, each at the width it plans. */
    private static List<PlanProblem.Job> planned(PlanProblem p, Plan plan) {
        List<PlanProblem.Job> out = new ArrayList<>();
        for (PlanProblem.Job job : p.jobs()) {
            if (plan.startStep().containsKey(job.id())) out.add(job.narrowed(plan.gpusOf(job.id(), job.gpus())));
        }
        return out;
    }

    private static boolean nodesHold(PlanProblem p, Plan plan) {
        List<PlanProblem.Job> placed = planned(p, plan);
        // widest first, so dead ends show early
        placed.sort(Comparator.comparingInt(PlanProblem.Job::gpus).reversed());
        return placed.isEmpty() || assignNodes(p, plan, placed, 0, 0, placed.get(0).gpus(), p.nodeFreeCopy());
    }

    /** Places job k's remaining {@code left} GPUs on nodes n and later, then the jobs after k. */
    private static boolean assignNodes(PlanProblem p, Plan plan, List<PlanProblem.Job> jobs, int k, int n, int left,
                                       int[][] free) {
        if (left == 0) {
            return k + 1 == jobs.size() || assignNodes(p, plan, jobs, k + 1, 0, jobs.get(k + 1).gpus(), free);
        }
        PlanProblem.Job job = jobs.get(k);
        int largest = Arrays.stream(p.nodeSizes()).max().orElse(0);
        int s = plan.startStep().get(job.id());
        int end = Math.min(p.horizonSteps(), s + job.durationSteps());
        for (int node = n; node < free.length; node++) {
            int room = Integer.MAX_VALUE;
            for (int t = s; t < end; t++) room = Math.min(room, free[node][t]);
            int most = Math.min(room, left);
            int least = job.gpus() <= largest ? left : 1;
            for (int take = most; take >= least; take--) {
                for (int t = s; t < end; t++) free[node][t] -= take;
                boolean fits = assignNodes(p, plan, jobs, k, node + 1, left - take, free);
                for (int t = s; t < end; t++) free[node][t] += take;
                if (fits) return true;
            }
        }
        return false;
    }
}
