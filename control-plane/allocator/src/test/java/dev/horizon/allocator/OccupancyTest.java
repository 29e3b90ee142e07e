package dev.horizon.allocator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.placement.Occupancy;
import java.util.List;
import org.junit.jupiter.api.Test;

class OccupancyTest {
    private final Cluster twoNodes = Cluster.homogeneous(16, 8, "H100-80GB", 81_559);

    @Test
    void aGpuIsNeverGivenTwice() {
        Occupancy o = new Occupancy(twoNodes);
        Placement p = new Placement(List.of(new Placement.Slice(0, 2, 2)));
        o.occupy(p);
        assertThrows(IllegalStateException.class, () -> o.occupy(new Placement(List.of(new Placement.Slice(0, 3, 1)))));
        assertThrows(IllegalStateException.class, () -> o.release(new Placement(List.of(new Placement.Slice(1, 0, 1)))));
    }

    @Test
    void blocksAreContiguousAndAlignedToAPowerOfTwo() {
        Occupancy o = new Occupancy(twoNodes);
        o.occupy(new Placement(List.of(new Placement.Slice(0, 0, 1))));
        Placement four = o.findBlock(4);
        assertEquals(List.of(new Placement.Slice(0, 4, 4)), four.slices(), "best fit on the fuller node, aligned at 4");
        o.occupy(four);
        Placement two = o.findBlock(2);
        assertEquals(new Placement.Slice(0, 2, 2), two.slices().get(0), "aligned pair beside the single GPU");
        Placement three = new Occupancy(twoNodes).findBlock(3);
        assertEquals(0, three.slices().get(0).firstGpu() % 4, "a 3-GPU job sits in an aligned 4-block");
    }

    @Test
    void jobsWiderThanANodeTakeWholeNodesPlusOneBlock() {
        Cluster three = Cluster.homogeneous(24, 8, "H100-80GB", 81_559);
        Occupancy o = new Occupancy(three);
        o.occupy(new Placement(List.of(new Placement.Slice(1, 0, 1))));
        Placement p = o.findBlock(12);
        assertEquals(12, p.gpuCount());
        assertEquals(8, p.slices().get(0).count());
        assertNull(o.findBlock(24), "node-1 is not whole, so three whole nodes are not free");
    }

    @Test
    void inferenceSinglesLeaveAlignedBlocksWhole() {
        Occupancy o = new Occupancy(Cluster.homogeneous(8, 8, "H100-80GB", 81_559));
        Placement singles = o.findSingles(3);
        o.occupy(singles);
        assertNotNull(o.findBlock(4), "three inference replicas must not break both 4-blocks of the node");
        assertNull(o.findSingles(6));
    }
}
