package dev.horizon.allocator.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.horizon.allocator.cpsat.CpSatPlanner;
import dev.horizon.allocator.model.PlacementRules.Topology;
import dev.horizon.allocator.model.PlacementRules;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The grid planners (heuristic and CP-SAT) place only where a job's rules allow: its models' nodes, whole pods per node,
 * one node, one NVLink domain. Four 8-GPU nodes, two per domain; each node has 4 GPUs free in the first two steps.
 */
class GridRulesTest {
    private static final int H = 8;
    private static final int[] SIZES = {8, 8, 8, 8};
    private static final int[] DOMAINS = {0, 0, 1, 1};

    private static int[][] halfFreeFirst() {
        int[][] free = new int[4][H];
        for (int[] f : free) {
            Arrays.fill(f, 8);
            f[0] = 4;
            f[1] = 4;
        }
        return free;
    }

    private static PlanProblem problem(PlanProblem.Job job) {
        int[] capacity = new int[H];
        Arrays.fill(capacity, 32);
        return new PlanProblem(H, 1.0, SIZES, capacity, halfFreeFirst(), List.of(job), DOMAINS);
    }

    private static PlanProblem.Job job(int gpus, PlacementRules rules, boolean[] allowed) {
        return new PlanProblem.Job("j", 1, gpus, 2, gpus, rules, allowed);
    }

    private static final List<Function<PlanProblem, Plan>> PLANNERS = List.of(new HeuristicPlanner()::plan, new CpSatPlanner(1.0, 8));

    @Test
    void podsSpreadOverNodesButAJobWithoutPodsOrOnOneNodeWaits() {
        PlacementRules pods = new PlacementRules(Set.of(), 4, true, Topology.ANY);
        for (Function<PlanProblem, Plan> planner : PLANNERS) {
            assertEquals(0, planner.apply(problem(job(8, pods, null))).startStep().get("j"), "two 4-GPU pods on two half-free nodes");
            assertEquals(2, planner.apply(problem(job(8, PlacementRules.ANY, null))).startStep().get("j"), "no node has 8 free before step 2");
            assertEquals(2, planner.apply(problem(job(8, pods.withTopology(Topology.SAME_NODE), null))).startStep().get("j"));
        }
        int[][] whole = NodeChoice.choose(problem(job(12, pods, null)), job(12, pods, null), new int[] {4, 4, 8, 4});
        assertArrayEquals(new int[][] {{0, 4}, {2, 8}}, sorted(whole), "a whole free node first, the rest on the fullest that fits");
        int[][] slices = NodeChoice.choose(problem(job(12, pods, null)), job(12, pods, null), new int[] {4, 4, 6, 4});
        assertArrayEquals(new int[][] {{0, 4}, {1, 4}, {3, 4}}, sorted(slices), "no whole node free: pod by pod, fullest first");
    }

    @Test
    void aJobUsesOnlyNodesOfModelsItAcceptsAndOneDomainWhenAsked() {
        boolean[] lastTwo = {false, false, true, true};
        PlacementRules pods = new PlacementRules(Set.of(), 4, true, Topology.ANY);
        for (Function<PlanProblem, Plan> planner : PLANNERS) {
            PlanProblem p = problem(job(12, pods, lastTwo));
            assertEquals(2, planner.apply(p).startStep().get("j"), "two nodes of 4 free cannot hold 12 before step 2");
        }
        int[][] across = NodeChoice.choose(problem(job(8, pods, null)), job(8, pods, null), new int[] {4, 0, 4, 0});
        assertArrayEquals(new int[][] {{0, 4}, {2, 4}}, sorted(across));
        PlanProblem.Job oneDomain = job(8, pods.withTopology(Topology.SAME_NVLINK_DOMAIN), null);
        assertNull(NodeChoice.choose(problem(oneDomain), oneDomain, new int[] {4, 0, 4, 0}), "4 free in each domain is not 8 in one");
        assertArrayEquals(new int[][] {{2, 4}, {3, 4}}, sorted(NodeChoice.choose(problem(oneDomain), oneDomain, new int[] {4, 0, 4, 4})));
        for (int[] slice : NodeChoice.choose(problem(job(8, pods, lastTwo)), job(8, pods, lastTwo), new int[] {8, 8, 4, 4})) {
            assertFalse(slice[0] < 2, "node " + slice[0] + " is of a model the job does not accept");
        }
    }

    private static int[][] sorted(int[][] slices) {
        int[][] copy = slices.clone();
        Arrays.sort(copy, (a, b) -> Integer.compare(a[0], b[0]));
        return copy;
    }
}
