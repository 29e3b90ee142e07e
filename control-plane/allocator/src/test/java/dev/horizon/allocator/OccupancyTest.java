package dev.horizon.allocator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
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

    @Test
    void inferenceSinglesKeepOffNodesHeldForAWideJobWhileOthersHaveRoom() {
        Occupancy o = new Occupancy(twoNodes);
        o.occupy(new Placement(List.of(new Placement.Slice(0, 0, 6))));
        boolean[] held = {true, false};
        assertEquals(List.of(0), nodes(o.findSingles(1)), "unheld, the fullest node takes it");
        Placement nine = o.findSingles(9, held);
        assertEquals(8, nine.slices().stream().filter(s -> s.node() == 1).count(), "node-1's eight GPUs first");
        assertEquals(1, nine.slices().stream().filter(s -> s.node() == 0).count(), "then the held node's, once no other node has a free GPU");
        assertEquals(1, Placement.newestOn(List.of(single(1), single(0), single(1)), held), "a shrinking service lets its newest replica on a held node go first");
        assertEquals(-1, Placement.newestOn(List.of(single(1)), held));
        assertEquals(-1, Placement.newestOn(List.of(single(0)), null));
    }

    private static List<Integer> nodes(Placement p) {
        return p.slices().stream().map(Placement.Slice::node).distinct().toList();
    }

    private static Placement single(int node) {
        return new Placement(List.of(new Placement.Slice(node, 7, 1)));
    }

    @Test
    void aSearchOfOneNodeFindsWhatTheSearchWithOnlyThatNodeAllowedFinds() {
        Random rng = new Random(5);
        String[] models = {"H100-80GB", "A100-80GB"};
        PlacementRules[] kinds = {PlacementRules.ANY, PlacementRules.ANY.withTopology(PlacementRules.Topology.SAME_NODE),
                PlacementRules.ANY.withTopology(PlacementRules.Topology.SAME_NVLINK_DOMAIN), new PlacementRules(Set.of(), 2, true, PlacementRules.Topology.ANY),
                new PlacementRules(Set.of(models[0]), 0, true, PlacementRules.Topology.ANY)};
        int found = 0;
        for (int trial = 0; trial < 40; trial++) {
            List<GpuNode> nodes = new ArrayList<>();
            for (int n = 0; n < 3 + rng.nextInt(8); n++) {
                nodes.add(new GpuNode("node-" + n, models[rng.nextInt(2)], rng.nextBoolean() ? 8 : 4, 81_559, "nvl-" + n / 3));
            }
            Occupancy o = new Occupancy(new Cluster(nodes));
            for (int n = 0; n < nodes.size(); n++) {
                for (int g = 0; g < nodes.get(n).gpus(); g++) if (rng.nextInt(3) == 0) o.occupy(new Placement(List.of(new Placement.Slice(n, g, 1))));
                if (rng.nextInt(6) == 0) o.drain(n);
            }
            for (int n = 0; n < nodes.size(); n++) {
                boolean[] only = new boolean[nodes.size()];
                only[n] = true;
                for (PlacementRules rules : kinds) {
                    for (NodeOrder order : NodeOrder.values()) {
                        for (int gpus = 1; gpus <= 8; gpus++) {
                            Placement all = o.findBlock(gpus, rules, order, only);
                            assertEquals(all, o.findBlockOn(n, gpus, rules, order), "trial " + trial + ", node " + n + ", " + gpus + " GPUs, " + rules + ", " + order);
                            if (all != null) found++;
                        }
                    }
                }
            }
        }
        assertTrue(found > 500, "the trials must find blocks often enough to say something (" + found + ")");
    }

    @Test
    void releasesUndoneLeaveTheOccupancyAsItWasAndSearchAsACopyWouldMeanwhile() {
        Random rng = new Random(11);
        int checked = 0;
        for (int trial = 0; trial < 30; trial++) {
            List<GpuNode> nodes = new ArrayList<>();
            for (int n = 0; n < 2 + rng.nextInt(5); n++) nodes.add(new GpuNode("node-" + n, "H100-80GB", 8, 81_559, "nvl-0"));
            Occupancy o = new Occupancy(new Cluster(nodes));
            List<Placement> running = new ArrayList<>();
            // a gang over two nodes, so that one release touches several nodes
            if (nodes.size() > 2) running.add(new Placement(List.of(new Placement.Slice(nodes.size() - 1, 0, 1), new Placement.Slice(nodes.size() - 2, 0, 1))));
            for (int n = 0; n < nodes.size(); n++) {
                for (int g = 0; g < 8; g++) {
                    int kind = rng.nextInt(4);
                    if (kind == 0) running.add(new Placement(List.of(new Placement.Slice(n, g, 1))));
                    if (kind == 1) for (int k = 0; k < 1 + rng.nextInt(3); k++) running.add(new Placement(List.of(new Placement.Slice(n, g, 1, GpuShare.timeSlice(100 + k, 1000)))));
                }
            }
            List<Placement> occupied = new ArrayList<>();
            for (Placement p : running) {
                if (!o.isFree(p)) continue;
                o.occupy(p);
                occupied.add(p);
            }
            String before = state(o);
            Occupancy.Undo undo = new Occupancy.Undo();
            Occupancy copy = o.copy();
            for (Placement victim : occupied) {
                if (rng.nextInt(3) != 0) continue;
                o.release(victim, undo);
                copy.release(victim);
                assertEquals(state(copy), state(o), "trial " + trial + ": released " + victim);
                for (int gpus = 1; gpus <= 8; gpus++) assertEquals(copy.findBlock(gpus), o.findBlock(gpus), "trial " + trial + ", " + gpus + " GPUs");
                checked++;
            }
            o.undo(undo);
            assertEquals(before, state(o), "trial " + trial + ": undone");
            o.undo(undo);
            assertEquals(before, state(o), "trial " + trial + ": an undo leaves nothing to undo twice");
        }
        assertTrue(checked > 100, "the trials must release often enough to say something (" + checked + ")");
    }

    /** What a search can read of the occupancy: per GPU whether it is whole-free, its shares in order and its free milli. */
    private static String state(Occupancy o) {
        StringBuilder out = new StringBuilder();
        for (int n = 0; n < o.cluster().nodes().size(); n++) {
            out.append(n).append(':').append(o.freeOn(n));
            for (int g = 0; g < o.cluster().nodes().get(n).gpus(); g++) out.append(' ').append(o.isWholeFree(n, g)).append(o.sharesOn(n, g)).append(o.freeMilli(n, g));
            out.append('\n');
        }
        return out.toString();
    }
}
