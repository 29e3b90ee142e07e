package dev.horizon.service.fractional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.GpuState;
import dev.horizon.fractional.mig.MigPolicy;
import dev.horizon.fractional.mig.ReconfigurationPlanner;
import dev.horizon.service.mig.MigPolicyBody;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlicePlanningTest {
    private final Cluster cluster = Cluster.homogeneous(4, 4, "H100-80GB", 81_559);

    private static Gpu gpu(int index, List<Gpu.MigDevice> mig) {
        return new Gpu(index, "GPU-" + index, "H100-80GB", 81_559, mig.isEmpty() ? "DISABLED" : "ENABLED", mig, "HEALTHY", null, null, List.of(), null);
    }

    @Test
    void theReconfigurationPlannerSeesWholeGpuWorkAndSharesAsRunningWork() {
        Occupancy o = new Occupancy(cluster);
        o.occupy(new Placement(List.of(new Placement.Slice(0, 0, 1))));
        o.occupy(new Placement(List.of(new Placement.Slice(0, 1, 1, GpuShare.timeSlice(300, 1000)))));
        MigLayout twoThrees = new MigLayout("H100-80GB", List.of(new MigLayout.Slot("3g.40gb", 0), new MigLayout.Slot("3g.40gb", 4)));
        o.setMigLayout(0, 2, twoThrees);
        List<GpuState> states = List.of(o.migState(0, 0, "GPU-0"), o.migState(0, 1, "GPU-1"), o.migState(0, 2, "GPU-2"), o.migState(0, 3, "GPU-3"));
        assertEquals(List.of(1, 1, 0, 0), states.stream().map(GpuState::runningTasks).toList(), "whole work, a share, idle partitioned, free");
        MigPolicy dynamic = new MigPolicy("p", Set.of("H100-80GB"), Set.of("7g.80gb"), MigPolicy.Layout.DYNAMIC, java.time.Duration.ZERO, 4);
        MigLayout whole = new MigLayout("H100-80GB", List.of(new MigLayout.Slot("7g.80gb", 0)));
        ReconfigurationPlanner.Plan plan = ReconfigurationPlanner.plan(dynamic, states,
                Map.of("GPU-0", whole, "GPU-1", whole, "GPU-2", whole, "GPU-3", whole), Instant.EPOCH);
        assertEquals(Set.of("GPU-2", "GPU-3"), Set.copyOf(plan.started().stream().map(ReconfigurationPlanner.Reconfiguration::gpuId).toList()));
    }

    @Test
    void aReportedLayoutNeedsEveryInstancesStart() {
        Gpu known = gpu(0, List.of(new Gpu.MigDevice("3g.40gb", "MIG-a", 4, 4)));
        assertEquals(List.of(new MigLayout.Slot("3g.40gb", 4)), SlicePlanning.reportedLayout(known).slots());
        assertNull(SlicePlanning.reportedLayout(gpu(0, List.of(new Gpu.MigDevice("3g.40gb", "MIG-a", null, null)))));
        assertNull(SlicePlanning.reportedLayout(gpu(0, List.of(new Gpu.MigDevice("3g.40gb", "MIG-a", 2, 4)))), "3g may not start at 2");
    }

    @Test
    void aNodeIsInThePoolOfTheFirstPolicyThatPartitionsItsModel() {
        Node h100 = new Node("n", "H100-80GB", 81_559, "nvl", Node.FROM_AGENT, Node.HEALTHY, null, 0, List.of(), false);
        List<MigPolicyBody.Stored> stored = List.of(
                new MigPolicyBody.Stored("a100s", Set.of("A100-80GB"), Set.of("1g.10gb"), "DYNAMIC", 0, 1),
                new MigPolicyBody.Stored("h100s", Set.of("H100-80GB"), Set.of("3g.40gb"), "FIXED", 60, 2));
        assertEquals("h100s", SlicePlanning.poolOf(h100, stored).orElseThrow().nodePool());
        assertFalse(SlicePlanning.poolOf(h100, stored.subList(0, 1)).isPresent());
    }
}
