package dev.horizon.ray.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.ray.demand.PlacementStrategy;
import dev.horizon.ray.gcs.proto.AffinityConstraint;
import dev.horizon.ray.gcs.proto.AntiAffinityConstraint;
import dev.horizon.ray.gcs.proto.BundleSelector;
import dev.horizon.ray.gcs.proto.ClusterResourceState;
import dev.horizon.ray.gcs.proto.GangResourceRequest;
import dev.horizon.ray.gcs.proto.PlacementConstraint;
import dev.horizon.ray.gcs.proto.ResourceRequest;
import dev.horizon.ray.gcs.proto.ResourceRequestByCount;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading demand from the forms of GetClusterResourceState that GCSes of different Ray versions send. */
class PendingDemandTest {
    private static ResourceRequest bundle(double gpus, PlacementConstraint... constraints) {
        return ResourceRequest.newBuilder().putResourcesBundle("GPU", gpus).addAllPlacementConstraints(List.of(constraints)).build();
    }

    @Test
    void theSameShapeReportedOncePerLabelSelectorIsOneDemandWithTheCountsAdded() {
        ResourceRequestByCount twice = ResourceRequestByCount.newBuilder().setRequest(bundle(0.5)).setCount(2).build();
        List<PendingDemand> demand = PendingDemand.of(ClusterResourceState.newBuilder()
                .addPendingResourceRequests(twice).addPendingResourceRequests(twice.toBuilder().setCount(3))
                .addPendingResourceRequests(twice.toBuilder().setCount(0)).build());
        assertEquals(List.of(new PendingDemand.Tasks("shape GPU=0.5", Map.of("GPU", 0.5), 5)), demand);
    }

    @Test
    void aNewerGcsSendingOnlyBundleSelectorsIsRead() {
        GangResourceRequest gang = GangResourceRequest.newBuilder().setDetails("0f1e:SPREAD|RESCHEDULING")
                .addBundleSelectors(BundleSelector.newBuilder().addResourceRequests(bundle(1)).addResourceRequests(bundle(1))).build();
        assertEquals(List.of(new PendingDemand.Gang("pg 0f1e", "0f1e", List.of(Map.of("GPU", 1.0), Map.of("GPU", 1.0)), PlacementStrategy.SPREAD)),
                PendingDemand.of(ClusterResourceState.newBuilder().addPendingGangResourceRequests(gang).build()));
    }

    @Test
    void withoutDetailsTheConstraintsSayTheStrategyAndTheBundlesKeyTheGang() {
        PlacementConstraint pack = PlacementConstraint.newBuilder().setAffinity(AffinityConstraint.newBuilder().setLabelName("_PG_ab")).build();
        PlacementConstraint spread = PlacementConstraint.newBuilder().setAntiAffinity(AntiAffinityConstraint.newBuilder().setLabelName("_PG_cd")).build();
        List<PendingDemand> demand = PendingDemand.of(ClusterResourceState.newBuilder()
                .addPendingGangResourceRequests(GangResourceRequest.newBuilder().addRequests(bundle(1, pack)).addRequests(bundle(1, pack)))
                .addPendingGangResourceRequests(GangResourceRequest.newBuilder().addRequests(bundle(2, spread)))
                .addPendingGangResourceRequests(GangResourceRequest.newBuilder().addRequests(bundle(4))).build());
        assertEquals(List.of(PlacementStrategy.STRICT_PACK, PlacementStrategy.STRICT_SPREAD, PlacementStrategy.PACK),
                demand.stream().map(d -> ((PendingDemand.Gang) d).strategy()).toList());
        assertEquals("gang GPU=1.0 | GPU=1.0", demand.get(0).key());
    }
}
