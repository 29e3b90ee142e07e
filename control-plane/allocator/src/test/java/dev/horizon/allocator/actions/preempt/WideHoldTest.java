package dev.horizon.allocator.actions.preempt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Nodes held for a waiting wide job keep working, but only with work the wide job can take back. */
class WideHoldTest {
    private static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(1800, true, 120);
    private static final Contract STARTS_OVER = new Contract(1800, false, 0);
    /** Five nodes of 8: a 32-GPU job needs four whole ones. */
    private final Cluster cluster = Cluster.homogeneous(40, 8, "H100-80GB", 81_559);

    /**
     * Weight-1 work of 2 GPUs on GPUs 0-1 of nodes 0-3, started 10 min ago: inside its 30-min minimum runtime, and expected
     * to run past the 4-h horizon, so the plan has no start for the wide job that small work starting now must keep clear
     * of; node 4 is empty.
     */
    private static List<RunningJob> freshSmallWork(Occupancy o) {
        List<RunningJob> running = new ArrayList<>();
        for (int n = 0; n < 4; n++) {
            Placement p = new Placement(List.of(new Placement.Slice(n, 0, 2)));
            o.occupy(p);
            running.add(new RunningJob("small-" + n, "t", JobClass.TRAINING, 1, 2, 0, NOW - 600, NOW + 15_000, RESUMABLE, p, false));
        }
        return running;
    }

    private static PendingJob wide(long arrival) {
        return PendingJob.builder().id("wide").team("t").jobClass(JobClass.TRAINING).weight(8).gpus(32).arrivalSeconds(arrival)
                .estimatedRemainingSeconds(3600).contract(RESUMABLE).build();
    }

    private static PendingJob waiting(String id, int gpus, Contract contract) {
        return PendingJob.builder().id(id).team("t").jobClass(JobClass.TRAINING).weight(1).gpus(gpus).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(3600).contract(contract).build();
    }

    private Decision decide(List<RunningJob> running, Occupancy o, List<PendingJob> pending) {
        return new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, pending, Map.of(), null));
    }

    private static boolean startedAsFill(Decision d, String id) {
        return d.starts().stream().filter(s -> s.jobId().equals(id)).findFirst().orElseThrow().fill();
    }

    @Test
    void smallResumableWorkStartsAsFillOnNodesHeldForAPatientWideJob() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> running = freshSmallWork(o);
        Decision d = decide(running, o, List.of(wide(NOW - 7200), waiting("resumable", 2, RESUMABLE), waiting("starts-over", 2, STARTS_OVER),
                waiting("node-wide", 8, RESUMABLE)));
        assertEquals(List.of(), d.preemptions(), "the small work is inside its minimum runtime: nothing can be taken yet");
        assertTrue(startedAsFill(d, "resumable"), "on a node held for the wide job, resumable work starts as fill the wide job may take back");
        assertFalse(startedAsFill(d, "starts-over"), "work that cannot resume never runs as fill: it starts as planned, and the price weighs its loss");
        assertFalse(startedAsFill(d, "node-wide"), "work as wide as its node (the empty node-4) starts as planned: as fill it would be the next thing taken back");
        assertTrue(d.waitReasons().get("wide").endsWith("node-4, node-0, node-1 and 1 more held for it: small work starting there starts as fill it may take back"),
                d.waitReasons().get("wide"));
        assertEquals(List.of(4, 0, 1, 2), d.nodesHeldForWideJob(), "the decision names the held nodes, which inference keeps off");
    }

    @Test
    void fillOnHeldNodesStaysFill() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> running = freshSmallWork(o);
        Placement lent = new Placement(List.of(new Placement.Slice(0, 2, 2)));
        o.occupy(lent);
        running.add(new RunningJob("lent", "t", JobClass.TRAINING, 1, 2, 0, NOW - 300, NOW + 3300, RESUMABLE, lent, true));
        assertEquals(List.of("lent"), decide(running, o, List.of()).promotions(), "with no wide job waiting, fill with room is promoted");
        assertEquals(List.of(), decide(running, o, List.of(wide(NOW - 7200))).promotions(), "on a node held for the wide job it stays fill");
    }

    /**
     * Four H100 nodes and four A100 nodes, each node in its own NVLink domain. On H100 nodes 2-3 and A100 nodes 6-7, 2 and
     * 4 GPUs are taken by protected work; the others are empty. The least busy nodes, taken across both models, would be
     * 0, 1, 4 and 5. A gang must run on one GPU model, so holding those four would never let a 32-GPU job start. The
     * nodes to hold are the four H100 nodes, which have 4 protected GPUs between them against 8 on the A100 nodes.
     */
    private static Cluster twoModelsWithProtectedWork(Occupancy[] occupancy, List<RunningJob> running) {
        List<GpuNode> nodes = new ArrayList<>();
        for (int n = 0; n < 8; n++) nodes.add(new GpuNode("node-" + n, n < 4 ? "H100-80GB" : "A100-80GB", 8, 81_559, "d" + n));
        Cluster twoModels = new Cluster(nodes);
        occupancy[0] = new Occupancy(twoModels);
        for (int n : new int[] {2, 3, 6, 7}) {
            Placement p = new Placement(List.of(new Placement.Slice(n, 0, n < 4 ? 2 : 4)));
            occupancy[0].occupy(p);
            running.add(new RunningJob("protected-" + n, "t", JobClass.TRAINING, 1, n < 4 ? 2 : 4, 0, NOW - 600, NOW + 15_000, RESUMABLE, p, false));
        }
        return twoModels;
    }

    @Test
    void nodesAreHeldOnOneGpuModelForAGangThatMayNotMixThem() {
        Occupancy[] o = new Occupancy[1];
        List<RunningJob> running = new ArrayList<>();
        Cluster twoModels = twoModelsWithProtectedWork(o, running);
        Decision d = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, twoModels, o[0], running, List.of(wide(NOW - 7200)), Map.of(), null));
        assertEquals(List.of(0, 1, 2, 3), d.nodesHeldForWideJob(), "the H100 nodes: the gang cannot span two models");
    }

    @Test
    void underFairShareTooNodesAreHeldOnOneGpuModel() {
        Occupancy[] o = new Occupancy[1];
        List<RunningJob> running = new ArrayList<>();
        twoModelsWithProtectedWork(o, running);
        NodeHolding.holdNodesFor(wide(NOW - 7200), o[0], new VictimPool(List.of(), NOW), running, new Decision());
        List<Integer> held = new ArrayList<>();
        for (int n = 0; n < 8; n++) if (o[0].isDrained(n)) held.add(n);
        assertEquals(List.of(0, 1, 2, 3), held, "the H100 nodes are kept empty for it, not the emptiest of both models");
    }

    @Test
    void aWideJobThatHasNotWaitedItsPatienceHoldsNothing() {
        Occupancy o = new Occupancy(cluster);
        Decision d = decide(freshSmallWork(o), o, List.of(wide(NOW - 600), waiting("resumable", 2, RESUMABLE)));
        assertFalse(startedAsFill(d, "resumable"), "no node is held: the small job starts protected as the plan puts it");
        assertEquals(List.of(), d.nodesHeldForWideJob());
        assertFalse(d.waitReasons().get("wide").contains("held for it"), d.waitReasons().get("wide"));
    }
}
