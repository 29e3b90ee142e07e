package dev.horizon.allocator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.ModelGroups;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.Feasibility;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.placement.SlicePlacer;
import dev.horizon.allocator.plan.NodeChoice;
import dev.horizon.allocator.plan.PlanProblem;
import dev.horizon.api.Contract;
import dev.horizon.api.InvalidJobException;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A gang's replicas land on one GPU model: where a placement would mix models, the fastest model that holds it whole now
 * (else it waits), unless the job says it may mix models.
 */
class OneModelPerGangTest {
    private static final Cluster CLUSTER = new Cluster(List.of(new GpuNode("a100-0", "A100-80GB", 8, 81_920, null),
            new GpuNode("h100-0", "H100-80GB", 8, 81_559, null), new GpuNode("a100-1", "A100-80GB", 8, 81_920, null),
            new GpuNode("h100-1", "H100-80GB", 8, 81_559, null)));
    /** A 2 x 4 PyTorchJob without gpuTypes. */
    private static final PlacementRules TWO_BY_FOUR = new PlacementRules(Set.of(), 4, true, PlacementRules.Topology.ANY);
    private static final PlacementRules MAY_MIX = new PlacementRules(Set.of("A100-80GB", "H100-80GB"), 4, true, PlacementRules.Topology.ANY, true);

    private static Set<String> models(Placement p) {
        return p.slices().stream().map(s -> CLUSTER.nodes().get(s.node()).gpuModel()).collect(Collectors.toSet());
    }

    /** Every node half busy: four free GPUs on each. */
    private static Occupancy halfBusy() {
        Occupancy o = new Occupancy(CLUSTER);
        for (int n = 0; n < 4; n++) o.occupy(new Placement(List.of(new Placement.Slice(n, 0, 4))));
        return o;
    }

    @Test
    void aGangTakesTheFastestModelThatHoldsItWholeAndNeverMixes() {
        Placement p = halfBusy().findBlock(8, TWO_BY_FOUR, NodeOrder.BEST_FIT);
        assertNotNull(p);
        assertEquals(Set.of("H100-80GB"), models(p), "both replicas on the H100s' free halves: " + p.describe(CLUSTER));
        Occupancy h100sFull = halfBusy();
        h100sFull.occupy(new Placement(List.of(new Placement.Slice(1, 4, 4))));
        Placement a = h100sFull.findBlock(8, TWO_BY_FOUR, NodeOrder.BEST_FIT);
        assertEquals(Set.of("A100-80GB"), models(a), "4 H100s free is not enough: the A100s hold it whole, " + a.describe(CLUSTER));
        Occupancy oneOfEach = halfBusy();
        oneOfEach.occupy(new Placement(List.of(new Placement.Slice(1, 4, 4))));
        oneOfEach.occupy(new Placement(List.of(new Placement.Slice(2, 4, 4))));
        assertNull(oneOfEach.findBlock(8, TWO_BY_FOUR, NodeOrder.BEST_FIT), "4 A100s and 4 H100s free: it waits rather than mixing");
        assertEquals(2, models(oneOfEach.findBlock(8, MAY_MIX, NodeOrder.BEST_FIT)).size(), "mixModels: true may mix");
    }

    @Test
    void sharesOfOneJobStayOnOneModelToo() {
        Occupancy o = new Occupancy(CLUSTER);
        o.occupy(new Placement(List.of(new Placement.Slice(0, 0, 6))));
        o.occupy(new Placement(List.of(new Placement.Slice(1, 0, 7))));
        o.occupy(new Placement(List.of(new Placement.Slice(2, 0, 8))));
        o.occupy(new Placement(List.of(new Placement.Slice(3, 0, 8))));
        PendingJob halves = PendingJob.builder().id("halves").team("t").jobClass(JobClass.BATCH_INFERENCE).weight(1).gpus(4)
                .estimatedRemainingSeconds(3600).contract(Contract.defaultFor(JobClass.BATCH_INFERENCE)).slice(SliceRequest.timeSlice(500, 30_000)).build();
        Placement p = new SlicePlacer(List.of(halves)).place(o, halves, true).placement();
        assertNotNull(p);
        assertEquals(Set.of("A100-80GB"), models(p), "one H100 GPU free holds only two halves; the A100's two hold all four: " + p.describe(CLUSTER));
    }

    @Test
    void aJobNoOneModelCouldHoldIsRefusedAtSubmission() {
        Cluster small = new Cluster(List.of(new GpuNode("a", "A100-80GB", 8, 81_920, null), new GpuNode("h", "H100-80GB", 8, 81_559, null)));
        assertTrue(Feasibility.problems(16, 16, null, TWO_BY_FOUR, small).get(0).contains("any one GPU model could ever give it"),
                Feasibility.problems(16, 16, null, TWO_BY_FOUR, small).toString());
        assertEquals(List.of(), Feasibility.problems(16, 16, null, MAY_MIX, small));
    }

    @Test
    void thePlanningGridKeepsTheSameRule() {
        int[] sizes = {8, 8, 8, 8};
        int[] free = {4, 4, 0, 0};
        String[] models = ModelGroups.models(CLUSTER);
        PlanProblem p = new PlanProblem(4, 1.0, sizes, new int[] {8, 8, 8, 8}, new int[][] {{4}, {4}, {0}, {0}}, List.of(), null, models);
        assertNull(NodeChoice.choose(p, new PlanProblem.Job("j", 1, 8, 1, 8, TWO_BY_FOUR, null), free), "one A100 half and one H100 half");
        assertEquals(2, NodeChoice.choose(p, new PlanProblem.Job("j", 1, 8, 1, 8, MAY_MIX, null), free).length);
    }

    @Test
    void mixModelsNeedsTheModelsNamed() {
        InvalidJobException bare = assertThrows(InvalidJobException.class,
                () -> JobJson.parse("{\"name\":\"j\",\"team\":\"t\",\"class\":\"TRAINING\",\"replicas\":2,\"perReplica\":{\"gpus\":4},\"mixModels\":true}"));
        assertTrue(bare.getMessage().contains("mixModels: true lets replicas run on different GPU models, so perReplica.gpuTypes must name two or more"),
                bare.getMessage());
        JobSpec named = JobJson.parse("{\"name\":\"j\",\"team\":\"t\",\"class\":\"TRAINING\",\"replicas\":2,"
                + "\"perReplica\":{\"gpus\":4,\"gpuTypes\":[\"A100-80GB\",\"H100-80GB\"]},\"mixModels\":true}");
        assertEquals(List.of(), named.problems());
        assertTrue(PlacementRules.of(named).mixModels());
        JobSpec oneModel = JobJson.parse("{\"name\":\"j\",\"team\":\"t\",\"class\":\"TRAINING\",\"replicas\":2,"
                + "\"perReplica\":{\"gpus\":4,\"gpuTypes\":[\"A100-80GB\",\"H100-80GB\"]}}");
        assertFalse(PlacementRules.of(oneModel).mixModels(), "several gpuTypes without mixModels still keep one model");
    }
}
