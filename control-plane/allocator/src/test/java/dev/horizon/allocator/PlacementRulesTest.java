package dev.horizon.allocator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules.Topology;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.JobJson;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlacementRulesTest {
    private static final long MEM = 81_559;

    private static PlacementRules rules(Set<String> types, int perReplica, Topology topology) {
        return new PlacementRules(types, perReplica, true, topology);
    }

    private static Placement block(int node, int first, int count) {
        return new Placement(List.of(new Placement.Slice(node, first, count)));
    }

    @Test
    void aJobGetsOnlyTheGpuModelsItAccepts() {
        // the H100 node is fuller, so best fit alone would put the job there
        Cluster mixed = new Cluster(List.of(new GpuNode("h100", "H100-80GB", 8, MEM, "a"), new GpuNode("a100", "A100-80GB", 8, MEM, "b")));
        Occupancy o = new Occupancy(mixed);
        o.occupy(block(0, 0, 2));
        PlacementRules a100 = rules(Set.of("A100-80GB"), 4, Topology.ANY);
        assertEquals(List.of(new Placement.Slice(0, 4, 4)), o.findBlock(4).slices(), "without gpuTypes: best fit on the fuller H100 node");
        assertEquals(List.of(new Placement.Slice(1, 0, 4)), o.findBlock(4, a100, NodeOrder.BEST_FIT).slices());
        o.occupy(block(1, 0, 6));
        assertNull(o.findBlock(4, a100, NodeOrder.BEST_FIT), "the A100 node is full; free H100 GPUs do not count");
        assertNull(o.findBlock(12, rules(Set.of("A100-80GB"), 0, Topology.ANY), NodeOrder.BEST_FIT), "a wide job spans only accepted nodes");
    }

    @Test
    void nothingNewLandsOnADrainedNode() {
        Occupancy o = new Occupancy(Cluster.homogeneous(16, 8, "H100-80GB", MEM));
        o.drain(0);
        assertEquals(1, o.findBlock(8, rules(Set.of(), 8, Topology.ANY), NodeOrder.BEST_FIT).slices().get(0).node());
        assertNull(o.findBlock(16, rules(Set.of(), 8, Topology.ANY), NodeOrder.BEST_FIT));
        assertNull(o.findBlock(16));
    }

    @Test
    void replicasOfAKnownWidthSpreadOverNodesButNeverSplit() {
        Occupancy o = new Occupancy(Cluster.homogeneous(16, 8, "H100-80GB", MEM));
        o.occupy(block(0, 0, 4));
        o.occupy(block(1, 0, 4));
        assertNull(o.findBlock(8), "without a replica width an 8-GPU job needs one node");
        Placement two = o.findBlock(8, rules(Set.of(), 4, Topology.ANY), NodeOrder.BEST_FIT);
        assertEquals(List.of(new Placement.Slice(0, 4, 4), new Placement.Slice(1, 4, 4)), two.slices());
        assertNull(o.findBlock(8, rules(Set.of(), 8, Topology.ANY), NodeOrder.BEST_FIT), "one 8-GPU pod never spans two nodes");
    }

    @Test
    void aWideJobTakesWholeReplicasPerNode() {
        // 3-GPU pods on 8-GPU nodes: each node holds two of them, and no pod straddles a node boundary
        Occupancy o = new Occupancy(Cluster.homogeneous(24, 8, "H100-80GB", MEM));
        Placement p = o.findBlock(12, rules(Set.of(), 3, Topology.ANY), NodeOrder.BEST_FIT);
        assertNotNull(p);
        assertEquals(12, p.gpuCount());
        for (Placement.Slice s : p.slices()) assertEquals(0, s.count() % 3, "slice " + s + " splits a pod");
        assertEquals(8, o.findBlock(12).slices().get(0).count(), "without a replica width: whole nodes plus a block");
    }

    @Test
    void sameNodeKeepsEveryReplicaOnOneNode() {
        Occupancy o = new Occupancy(Cluster.homogeneous(16, 8, "H100-80GB", MEM));
        o.occupy(block(0, 0, 4));
        o.occupy(block(1, 0, 4));
        assertNull(o.findBlock(8, rules(Set.of(), 4, Topology.SAME_NODE), NodeOrder.BEST_FIT));
        o.release(block(1, 0, 4));
        assertEquals(List.of(new Placement.Slice(1, 0, 8)), o.findBlock(8, rules(Set.of(), 4, Topology.SAME_NODE), NodeOrder.BEST_FIT).slices());
        assertNull(o.findBlock(16, rules(Set.of(), 8, Topology.SAME_NODE), NodeOrder.BEST_FIT), "wider than any node");
    }

    @Test
    void sameNvlinkDomainKeepsTheJobInsideOneDomain() {
        Cluster racks = new Cluster(List.of(new GpuNode("n0", "H100-80GB", 8, MEM, "rack-a"), new GpuNode("n1", "H100-80GB", 8, MEM, "rack-a"),
                new GpuNode("n2", "H100-80GB", 8, MEM, "rack-b"), new GpuNode("n3", "H100-80GB", 8, MEM, "rack-b")));
        Occupancy o = new Occupancy(racks);
        o.occupy(block(1, 0, 1));
        Placement any = o.findBlock(16, rules(Set.of(), 8, Topology.ANY), NodeOrder.BEST_FIT);
        assertEquals(List.of(0, 2), any.slices().stream().map(Placement.Slice::node).toList(), "any topology spans both racks");
        Placement rack = o.findBlock(16, rules(Set.of(), 8, Topology.SAME_NVLINK_DOMAIN), NodeOrder.BEST_FIT);
        assertEquals(List.of(2, 3), rack.slices().stream().map(Placement.Slice::node).toList());
        o.occupy(block(3, 0, 1));
        assertNull(o.findBlock(16, rules(Set.of(), 8, Topology.SAME_NVLINK_DOMAIN), NodeOrder.BEST_FIT), "no rack has two whole nodes");
        o.occupy(block(0, 0, 4));
        o.occupy(block(2, 0, 4));
        PlacementRules twoPods = rules(Set.of(), 4, Topology.ANY);
        assertEquals(List.of(0, 2), o.findBlock(8, twoPods, NodeOrder.BEST_FIT).slices().stream().map(Placement.Slice::node).toList(),
                "best fit alone puts the two pods on the fullest nodes, one in each rack");
        assertEquals(List.of(0, 1), o.findBlock(8, twoPods.withTopology(Topology.SAME_NVLINK_DOMAIN), NodeOrder.BEST_FIT).slices().stream()
                .map(Placement.Slice::node).toList());
    }

    @Test
    void leastAllocatedSpreadsWhereBestFitPacks() {
        Occupancy o = new Occupancy(Cluster.homogeneous(16, 8, "H100-80GB", MEM));
        o.occupy(block(0, 0, 2));
        assertEquals(0, o.findBlock(2, PlacementRules.ANY, NodeOrder.BEST_FIT).slices().get(0).node());
        assertEquals(1, o.findBlock(2, PlacementRules.ANY, NodeOrder.LEAST_ALLOCATED).slices().get(0).node());
        Placement spread = new Occupancy(Cluster.homogeneous(16, 8, "H100-80GB", MEM))
                .findBlock(8, rules(Set.of(), 4, Topology.ANY), NodeOrder.LEAST_ALLOCATED);
        assertEquals(List.of(0, 1), spread.slices().stream().map(Placement.Slice::node).toList(), "one pod per node, as kube-scheduler spreads");
    }

    @Test
    void anElasticJobShrinksOnlyByWholeReplicas() {
        assertEquals(List.of(8, 4, 2, 1), PlacementRules.ANY.widths(8, 1));
        assertEquals(List.of(12, 6), rules(Set.of(), 6, Topology.ANY).widths(12, 6));
        assertEquals(List.of(24, 12, 6), rules(Set.of(), 3, Topology.ANY).widths(24, 6));
        assertEquals(List.of(6, 4, 2), rules(Set.of(), 2, Topology.ANY).widths(6, 2));
    }

    @Test
    void rulesComeFromTheJobJson() {
        PlacementRules r = PlacementRules.of(JobJson.parse("""
                {"name":"x","team":"t","class":"TRAINING","replicas":2,"perReplica":{"gpus":4,"gpuTypes":["A100-80GB"]},
                 "topology":"same-nvlink-domain"}"""));
        assertEquals(new PlacementRules(Set.of("A100-80GB"), 4, true, Topology.SAME_NVLINK_DOMAIN), r);
        assertEquals(0, PlacementRules.of(JobJson.parse("""
                {"name":"x","team":"t","class":"TRAINING","perReplica":{"gpuMilli":500,"memoryMiB":1000}}""")).gpusPerReplica());
        assertThrows(IllegalArgumentException.class, () -> Topology.of("same-rack"));
    }
}
