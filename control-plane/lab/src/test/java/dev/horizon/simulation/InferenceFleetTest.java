package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.placement.Occupancy;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The world's serving system: where replicas go and which go first, as the adapters' serving GPUs choose them. */
class InferenceFleetTest {
    private final Cluster twoNodes = Cluster.homogeneous(16, 8, "H100-80GB", 81_559);

    private InferenceFleet fleet(Occupancy occupancy) {
        double[] demand = new double[96];
        Arrays.fill(demand, 2);
        ServiceDemand chat = new ServiceDemand(new InferenceService("chat", "t", 10, 8), demand, Arrays.copyOf(demand, 4));
        Scenario s = new Scenario("fleet", twoNodes, 900, 4, 16, List.of(), List.of(chat), List.of(), Map.of("name", "fleet"), null, null, List.of());
        return new InferenceFleet(s, occupancy, 30);
    }

    private static List<Integer> nodesHeld(InferenceFleet fleet) {
        return fleet.states().get(0).held().stream().map(p -> p.slices().get(0).node()).toList();
    }

    @Test
    void replicasKeepOffNodesHeldForAWideJobAndThoseThereGoFirst() {
        Occupancy occupancy = new Occupancy(twoNodes);
        occupancy.occupy(new Placement(List.of(new Placement.Slice(0, 0, 4))));
        InferenceFleet fleet = fleet(occupancy);
        fleet.resize(0, 0, true, Map.of("chat", 2), (service, gpus, t) -> 0);
        assertEquals(List.of(0, 0), nodesHeld(fleet), "unheld, replicas go to the fullest node");
        fleet.heldForWideJob(new boolean[] {true, false});
        fleet.resize(1, 60, true, Map.of("chat", 4), (service, gpus, t) -> 0);
        assertEquals(List.of(0, 0, 1, 1), nodesHeld(fleet), "new replicas go to node-1 while node-0 is held, though node-0 is fuller");
        fleet.resize(2, 120, true, Map.of("chat", 3), (service, gpus, t) -> 0);
        assertEquals(List.of(0, 1, 1), nodesHeld(fleet), "shrinking lets a replica on the held node go first, not the newest");
    }
}
