package dev.horizon.allocator.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.PlacementRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeuristicPlannerTest {
    private final HeuristicPlanner planner = new HeuristicPlanner();

    static int[] full(int h, int v) {
        int[] a = new int[h];
        java.util.Arrays.fill(a, v);
        return a;
    }

    @Test
    void rangeMinimaMatchBruteForceForEveryWindowAndFollowTheStretchesThatChange() {
        Random rng = new Random(5);
        for (int trial = 0; trial < 100; trial++) {
            int h = 1 + rng.nextInt(100), rows = 1 + rng.nextInt(40);
            int[][] a = new int[rows][h];
            for (int[] row : a) for (int i = 0; i < h; i++) row[i] = rng.nextInt(9);
            RangeMinima minima = new RangeMinima(a, h);
            for (int round = 0; round < 4; round++) {
                for (int r = 0; r < rows; r++) {
                    for (int s = 0; s < h; s++) {
                        int m = Integer.MAX_VALUE;
                        for (int len = 1; len <= h + 2; len++) {
                            if (s + len - 1 < h) m = Math.min(m, a[r][s + len - 1]);
                            assertEquals(m, minima.min(r, s, len), "row " + r + " from " + s + " len " + len);
                        }
                    }
                }
                int[] all = new int[rows];
                int s = rng.nextInt(h), len = 1 + rng.nextInt(h + 2);
                minima.minima(s, len, all);
                for (int r = 0; r < rows; r++) {
                    int m = Integer.MAX_VALUE;
                    for (int t = s; t < Math.min(h, s + len); t++) m = Math.min(m, a[r][t]);
                    assertEquals(m, all[r], "every row's minimum at once: row " + r + " from " + s + " len " + len);
                }
                // the best fit: the first allowed row whose minimum is the least at least g
                boolean[] allowed = rng.nextBoolean() ? null : new boolean[rows];
                if (allowed != null) for (int q = 0; q < rows; q++) allowed[q] = rng.nextBoolean();
                int g = rng.nextInt(9), fit = -1;
                for (int q = 0; q < rows; q++) {
                    if ((allowed == null || allowed[q]) && all[q] >= g && (fit < 0 || all[q] < all[fit])) fit = q;
                }
                assertEquals(fit, minima.leastAtLeast(s, len, allowed, g), "best fit of " + g + " from " + s + " len " + len);
                // a job planned on a row lowers one stretch of it by its GPUs (a rise, by a negative amount, the same way)
                int r = rng.nextInt(rows), from = rng.nextInt(h), to = from + 1 + rng.nextInt(h - from), by = rng.nextInt(7) - 2;
                for (int t = from; t < to; t++) a[r][t] -= by;
                minima.lowered(r, from, to, by);
            }
        }
    }

    /**
     * The search's shortcuts (StartFloors, and not asking NodeChoice where the nodes' free GPUs cannot hold a job) plan
     * what the plain search plans, on random grids of mixed models, NVLink domains, busy stretches and every kind of rule.
     */
    @Test
    void theSearchShortcutsPlanExactlyWhatThePlainSearchPlans() {
        Random rng = new Random(11);
        long later = 0, unplaced = 0, held = 0;
        String[] models = {"H100-80GB", "A100-80GB"};
        PlacementRules[] kinds = {PlacementRules.ANY, PlacementRules.ANY.withTopology(PlacementRules.Topology.SAME_NODE),
                PlacementRules.ANY.withTopology(PlacementRules.Topology.SAME_NVLINK_DOMAIN), new PlacementRules(Set.of(), 2, true, PlacementRules.Topology.ANY),
                new PlacementRules(Set.of(), 4, true, PlacementRules.Topology.SAME_NVLINK_DOMAIN),
                new PlacementRules(Set.of(models[0], models[1]), 0, true, PlacementRules.Topology.ANY, true)};
        for (int trial = 0; trial < 60; trial++) {
            int h = 8 + rng.nextInt(40), nodes = 2 + rng.nextInt(10);
            int[] sizes = new int[nodes], domains = new int[nodes], capacity = new int[h];
            String[] nodeModels = new String[nodes];
            int[][] free = new int[nodes][h];
            for (int n = 0; n < nodes; n++) {
                sizes[n] = rng.nextBoolean() ? 8 : 4;
                domains[n] = n / 3;
                nodeModels[n] = models[rng.nextInt(2)];
                // running work ends at some step; a busy stretch later stands for inference or drained GPUs
                int busy = rng.nextInt(sizes[n] + 1), until = rng.nextInt(h), dip = rng.nextInt(h);
                for (int t = 0; t < h; t++) free[n][t] = sizes[n] - (t < until ? busy : 0) - (t >= dip && t < dip + 3 ? rng.nextInt(2) : 0);
            }
            for (int t = 0; t < h; t++) {
                for (int n = 0; n < nodes; n++) capacity[t] += free[n][t];
                capacity[t] -= rng.nextInt(3);
            }
            List<PlanProblem.Job> jobs = new ArrayList<>();
            for (int j = 0; j < 20 + rng.nextInt(40); j++) {
                PlacementRules rules = kinds[rng.nextInt(kinds.length)];
                int gpus = rules.perReplica() ? rules.gpusPerReplica() * (1 + rng.nextInt(4)) : 1 + rng.nextInt(rng.nextInt(4) == 0 ? 20 : 8);
                boolean[] allowed = null;
                if (rng.nextInt(3) == 0) {
                    String model = models[rng.nextInt(2)];
                    allowed = new boolean[nodes];
                    for (int n = 0; n < nodes; n++) allowed[n] = nodeModels[n].equals(model);
                }
                int minGpus = rng.nextInt(4) == 0 ? Math.max(1, gpus / 4) : gpus;
                jobs.add(new PlanProblem.Job("j" + j, 1 + rng.nextInt(4), gpus, 1 + rng.nextInt(h + 4), minGpus, rules, allowed));
            }
            // every other trial with Horizon's caution for starts now, which the floors must also hold for
            PlanProblem p = new PlanProblem(h, 0.99, sizes, capacity, free, jobs, domains, nodeModels, trial % 2 == 0 ? 1 : 8);
            Plan fast = planner.plan(p, true), plain = planner.plan(p, false);
            assertEquals(plain.startStep(), fast.startStep(), "trial " + trial);
            assertEquals(plain.narrowedGpus(), fast.narrowedGpus(), "trial " + trial);
            assertEquals(plain.objective(), fast.objective(), "trial " + trial);
            assertEquals(plain.heldByCaution(), fast.heldByCaution(), "trial " + trial + ": a held job's checks read its best-fit node from the minima and find what NodeChoice finds");
            held += fast.heldByCaution().size();
            later += plain.startStep().values().stream().filter(st -> st > 0).count();
            unplaced += jobs.size() - plain.startStep().size();
        }
        // the grids are full enough that jobs wait for later steps and some find no room: the searches had steps to skip
        assertTrue(later > 100 && unplaced > 100 && held > 30, later + " planned later, " + unplaced + " not planned, " + held + " held by the caution");
    }

    @Test
    void valueGoesFirstAndLowerValueWaitsForItsBlock() {
        int h = 8;
        PlanProblem p = new PlanProblem(h, 1.0, new int[] {8}, full(h, 8), new int[][] {full(h, 8)},
                List.of(new PlanProblem.Job("high", 8, 6, 4), new PlanProblem.Job("low", 1, 4, 2)));
        Plan plan = planner.plan(p);
        assertEquals(0, plan.startStep().get("high"));
        assertEquals(4, plan.startStep().get("low"), "the low job waits until the high job's block frees");
    }

    @Test
    void aStartNowMustHoldForEightEstimatesBeforeMoreValuableWorkPlannedOnItsNode() {
        int h = 24;
        int[] busy = full(h, 8);
        for (int t = 0; t < 4; t++) busy[t] = 4; // four GPUs busy for four more steps
        List<PlanProblem.Job> jobs = List.of(new PlanProblem.Job("wide", 8, 8, 6), new PlanProblem.Job("small", 1, 4, 2));
        Plan plan = planner.plan(new PlanProblem(h, 1.0, new int[] {8}, busy.clone(), new int[][] {busy.clone()}, jobs, null, null, 8));
        assertEquals(4, plan.startStep().get("wide"));
        assertEquals(1, plan.startStep().get("small"),
                "the gap before the 8-GPU job's step holds the small job's 2-step estimate, not 8 times it: it does not start now");
        Plan plain = planner.plan(new PlanProblem(h, 1.0, new int[] {8}, busy.clone(), new int[][] {busy.clone()}, jobs, null, null, 1));
        assertEquals(0, plain.startStep().get("small"), "without the caution (the Slurm-like backfill's plan) it starts in the gap");
        assertEquals(Map.of("small", 10), plan.heldByCaution(), "the caution alone kept it out, and the plan says so (its wait reason names it)");
        assertEquals(10, plan.toldStep("small"), "it is told the step its cautious run first fits (after the 8-GPU job's run), not the gap's step 1:"
                + " when step 1 comes it would be held again");
        assertEquals(Map.of(), plain.heldByCaution());
        assertEquals(0, plain.toldStep("small"));

        PlanProblem alone = new PlanProblem(h, 1.0, new int[] {8}, busy.clone(), new int[][] {busy.clone()},
                List.of(new PlanProblem.Job("small", 1, 4, 2)), null, null, 8);
        assertEquals(0, planner.plan(alone).startStep().get("small"), "with nothing planned after it, it starts now");

        int[] capacity = busy.clone();
        for (int t = 0; t < h; t++) capacity[t] += 4;
        PlanProblem twoNodes = new PlanProblem(h, 1.0, new int[] {8, 4}, capacity, new int[][] {busy.clone(), full(h, 4)}, jobs, null, null, 8);
        assertEquals(0, planner.plan(twoNodes).startStep().get("small"), "a node nothing is planned on holds it now");

        int[] longer = busy.clone();
        for (int t = 0; t < 2; t++) longer[t] = 2; // two more GPUs busy for two steps: the small job's 4 do not fit now at all
        Plan full = planner.plan(new PlanProblem(h, 1.0, new int[] {8}, longer.clone(), new int[][] {longer.clone()}, jobs, null, null, 8));
        assertEquals(2, full.startStep().get("small"));
        assertEquals(Map.of(), full.heldByCaution(), "it waits for GPUs, not for the caution: its reason must not blame the caution");
        assertEquals(2, full.toldStep("small"));
    }

    @Test
    void inheritedWorkAndTheInferenceReservationAreNeverOverbooked() {
        int h = 6;
        int[] capacity = {2, 2, 8, 8, 8, 8}; // inherited work and inference hold 6 GPUs for two steps
        int[] node = {2, 2, 8, 8, 8, 8};
        PlanProblem p = new PlanProblem(h, 1.0, new int[] {8}, capacity, new int[][] {node},
                List.of(new PlanProblem.Job("a", 4, 4, 2)));
        assertEquals(2, planner.plan(p).startStep().get("a"));
    }

    @Test
    void randomPlansRespectClusterAndNodeCapacityEveryStep() {
        Random rng = new Random(11);
        for (int trial = 0; trial < 50; trial++) {
            int h = 24, nodes = 1 + rng.nextInt(4);
            int[] sizes = new int[nodes];
            int[][] free = new int[nodes][];
            int total = 0;
            for (int n = 0; n < nodes; n++) {
                sizes[n] = 8;
                free[n] = full(h, 8);
                free[n][0] = rng.nextInt(9);
                total += 8;
            }
            int[] capacity = full(h, total - rng.nextInt(4));
            List<PlanProblem.Job> jobs = new ArrayList<>();
            for (int j = 0; j < 20; j++) jobs.add(new PlanProblem.Job("j" + j, 1 + rng.nextInt(8), 1 + rng.nextInt(12), 1 + rng.nextInt(10)));
            PlanProblem p = new PlanProblem(h, 0.99, sizes, capacity, free, jobs);
            Plan plan = planner.plan(p);
            int[] used = new int[h];
            for (PlanProblem.Job j : jobs) {
                Integer s = plan.startStep().get(j.id());
                if (s == null) continue;
                for (int t = s; t < Math.min(h, s + j.durationSteps()); t++) used[t] += j.gpus();
            }
            for (int t = 0; t < h; t++) assertTrue(used[t] <= capacity[t], "step " + t + " overbooked in trial " + trial);
        }
    }

    @Test
    void elasticJobsNarrowToAPowerOfTwoThatStartsNow() {
        int h = 8;
        int[] node = full(h, 8);
        node[0] = 2;
        node[1] = 2; // six GPUs busy for two more steps
        PlanProblem p = new PlanProblem(h, 1.0, new int[] {8}, node.clone(), new int[][] {node},
                List.of(new PlanProblem.Job("elastic", 1, 4, 2, 1), new PlanProblem.Job("rigid", 1, 4, 2)));
        Plan plan = planner.plan(p);
        assertEquals(0, plan.startStep().get("elastic"));
        assertEquals(2, plan.gpusOf("elastic", 4), "4 GPUs wanted, the widest power of two free now is 2");
        assertEquals(2, plan.startStep().get("rigid"), "a rigid job waits for its full width");
        assertFalse(plan.narrowedGpus().containsKey("rigid"));
    }

    @Test
    void nothingFitsGivesAnEmptyPlan() {
        PlanProblem p = new PlanProblem(4, 1.0, new int[] {8}, full(4, 0), new int[][] {full(4, 8)},
                List.of(new PlanProblem.Job("a", 1, 1, 1)));
        assertEquals(Map.of(), planner.plan(p).startStep());
    }
}
