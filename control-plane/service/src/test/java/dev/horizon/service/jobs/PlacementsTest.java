package dev.horizon.service.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.Placement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlacementsTest {
    private final Cluster cluster = Cluster.homogeneous(16, 8, "H100-80GB", 81_559);
    private final Map<String, Integer> index = Map.of("node-0", 0, "node-1", 1);

    @Test
    void slicesRoundTripThroughTheStoredForm() {
        for (Placement p : List.of(new Placement(List.of(new Placement.Slice(1, 2, 1, GpuShare.mig("3g.40gb", 4)))),
                new Placement(List.of(new Placement.Slice(0, 7, 1, GpuShare.timeSlice(500, 20_000)), new Placement.Slice(1, 0, 1, GpuShare.timeSlice(500, 20_000)))),
                new Placement(List.of(new Placement.Slice(0, 0, 8), new Placement.Slice(1, 4, 4))))) {
            assertEquals(p, Placements.parse(p.describe(cluster), cluster, index), p.describe(cluster));
        }
        assertEquals("node-1[2-2:3g.40gb@4]", new Placement(List.of(new Placement.Slice(1, 2, 1, GpuShare.mig("3g.40gb", 4)))).describe(cluster));
        assertNull(Placements.parse("node-1[2-2:9g.1tb@4]", cluster, index), "an unknown share is no placement");
    }
}
