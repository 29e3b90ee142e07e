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

        assertEquals(hint.startStep(), plan.startStep());
        assertEquals(36.0, plan.objective(), 1e-9);
        assertFalse(planner.lastStats().improved());
        assertFeasible(p, plan);
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

    /** Three 8-GPU nodes with inherited work early on, a varying reservation, and jobs that each fit one node. */
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
        int[] widths = {1, 2, 3, 4, 5, 6, 8};
        List<PlanProblem.Job> jobs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            jobs.add(new PlanProblem.Job("j" + i, 0.5 + rnd.nextInt(20) / 4.0, widths[rnd.nextInt(widths.length)],
                    1 + rnd.nextInt(8)));
        }
        jobs.sort(Comparator.comparingDouble(PlanProblem.Job::weight).reversed());
        return new PlanProblem(h, 0.99, nodeSizes, capacity, nodeFree, jobs);
    }

    /**
     * Independent of the planners' placement rules: starts lie in the horizon, the objective is the sum of
     * rewards, protected capacity holds every step, and some assignment of each single-node job to one node
     * for its whole run keeps every node within its free GPUs at every step (found by exhaustive search).
     */
    private static void assertFeasible(PlanProblem p, Plan plan) {
        int h = p.horizonSteps();
        List<PlanProblem.Job> placed = new ArrayList<>();
        double objective = 0;
        int[] used = new int[h];
        for (PlanProblem.Job job : p.jobs()) {
            Integer s = plan.startStep().get(job.id());
            if (s == null) continue;
            assertTrue(s >= 0 && s < h, job.id() + " starts outside the horizon at " + s);
            placed.add(job);
            objective += p.reward(job, s);
            for (int t = s; t < Math.min(h, s + job.durationSteps()); t++) used[t] += job.gpus();
        }
        assertEquals(objective, plan.objective(), 1e-6);
        for (int t = 0; t < h; t++) {
            assertTrue(used[t] <= p.capacity()[t], "step " + t + ": " + used[t] + " GPUs > capacity " + p.capacity()[t]);
        }
        placed.sort(Comparator.comparingInt(PlanProblem.Job::gpus).reversed());
        int[][] free = p.nodeFreeCopy();
        assertTrue(assignNodes(p, plan, placed, 0, free), "no node assignment fits " + plan.startStep());
    }

    private static boolean assignNodes(PlanProblem p, Plan plan, List<PlanProblem.Job> jobs, int k, int[][] free) {
        if (k == jobs.size()) return true;
        PlanProblem.Job job = jobs.get(k);
        int s = plan.startStep().get(job.id());
        int end = Math.min(p.horizonSteps(), s + job.durationSteps());
        for (int[] node : free) {
            boolean fits = true;
            for (int t = s; t < end && fits; t++) fits = node[t] >= job.gpus();
            if (!fits) continue;
            for (int t = s; t < end; t++) node[t] -= job.gpus();
            boolean rest = assignNodes(p, plan, jobs, k + 1, free);
            for (int t = s; t < end; t++) node[t] += job.gpus();
            if (rest) return true;
        }
        return false;
    }
}
