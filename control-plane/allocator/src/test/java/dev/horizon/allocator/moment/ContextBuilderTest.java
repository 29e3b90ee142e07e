package dev.horizon.allocator.moment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.TeamUsage;
import dev.horizon.forecast.DemandForecaster;
import dev.horizon.forecast.DurationEstimator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContextBuilderTest {
    private static final long NOW = 36_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);
    private final GpuNode n0 = new GpuNode("n0", "H100-80GB", 8, 81_559, "rack-a");
    private final GpuNode n1 = new GpuNode("n1", "H100-80GB", 8, 81_559, "rack-a");

    private static Placement block(int node, int first, int count) {
        return new Placement(List.of(new Placement.Slice(node, first, count)));
    }

    private static ActiveJob job(String id, String team, int gpus, long userEstimate, long done, ActiveJob.Running run) {
        return new ActiveJob(id, team, JobClass.TRAINING, 2, gpus, gpus, 0, userEstimate, TRAINING, null, null,
                new ActiveJob.RunHistory(done, run == null ? 0 : 1, 0, 0), run);
    }

    private ClusterMoment moment(List<NodeState> nodes, List<ActiveJob> jobs, Teams teams, List<ServiceState> services) {
        return new ClusterMoment(NOW, 900, 16, nodes, jobs, teams, services, new DurationEstimator());
    }

    @Test
    void remainingWorkCountsWhatTheJobAlreadyDid() {
        // 4 GPUs x 2 h estimated; it kept 4 GPU-hours from an earlier run, so 1 h is left at full width
        ActiveJob waiting = job("w", "t", 4, 7200, 4 * 3600, null);
        // running on 4 GPUs for 10 min of the 2 h it still had: 110 min left
        ActiveJob runningNow = job("r", "t", 4, 7200, 0, new ActiveJob.Running(NOW - 600, block(0, 0, 4), false));
        // the estimator thinks it is already done: a minute is the least any estimate says
        ActiveJob overdue = job("o", "t", 4, 600, 4 * 3600, null);
        PlanningContext ctx = ContextBuilder.build(moment(List.of(NodeState.ready(n0)), List.of(runningNow, waiting, overdue), null, List.of()));
        assertEquals(List.of(3600L, ContextBuilder.MIN_ESTIMATE_SECONDS),
                ctx.pending().stream().map(PendingJob::estimatedRemainingSeconds).toList());
        assertEquals(List.of(3600L, ContextBuilder.MIN_ESTIMATE_SECONDS), ctx.pending().stream().map(PendingJob::expectedRemainingSeconds).toList(),
                "the expected run less the work kept, too (a user's estimate is both)");
        RunningJob r = ctx.running().get(0);
        assertEquals(NOW + 6600, r.estimatedEndSeconds());
        assertEquals(4, ctx.occupancy().freeOn(0), "the running job's GPUs are busy");
        assertEquals(2.0, r.weight(), "a job's weight is its priority; fair share re-weights it later");
    }

    @Test
    void nothingNewLandsOnADrainedUnhealthyOrLostNode() {
        List<NodeState.Gpu> oneLost = new ArrayList<>(Collections.nCopies(8, NodeState.Gpu.WHOLE));
        oneLost.set(3, new NodeState.Gpu(null, null, true));
        List<NodeState> nodes = List.of(new NodeState(n0, NodeState.Health.DRAINED, null, Collections.nCopies(8, NodeState.Gpu.WHOLE)),
                new NodeState(n1, NodeState.Health.READY, null, oneLost));
        PlanningContext ctx = ContextBuilder.build(moment(nodes, List.of(), null, List.of()));
        assertTrue(ctx.occupancy().isDrained(0));
        assertTrue(ctx.occupancy().isDrained(1), "a node that lost a GPU takes no new work");
        assertFalse(ctx.occupancy().isWholeFree(1, 3), "a lost GPU serves nothing again");
        PlanningContext unhealthy = ContextBuilder.build(moment(List.of(new NodeState(n0, NodeState.Health.UNHEALTHY, null,
                Collections.nCopies(8, NodeState.Gpu.WHOLE))), List.of(), null, List.of()));
        assertTrue(unhealthy.occupancy().isDrained(0));
    }

    @Test
    void migLayoutsAndRepartitioningsCarryOver() {
        MigLayout halves = new MigLayout("H100-80GB", List.of(new MigLayout.Slot("3g.40gb", 0), new MigLayout.Slot("3g.40gb", 4)));
        List<NodeState.Gpu> gpus = new ArrayList<>(Collections.nCopies(8, NodeState.Gpu.WHOLE));
        gpus.set(0, new NodeState.Gpu(halves, null, false));
        gpus.set(1, new NodeState.Gpu(null, halves, false));
        PlanningContext ctx = ContextBuilder.build(moment(List.of(new NodeState(n0, NodeState.Health.READY, null, gpus)), List.of(), null, List.of()));
        assertEquals(halves, ctx.occupancy().migLayout(0, 0));
        assertTrue(ctx.occupancy().isReconfiguring(0, 1));
        assertEquals(halves, ctx.occupancy().reconfiguringTo(0, 1));
        assertEquals(6, ctx.occupancy().freeOn(0), "partitioned and re-partitioning GPUs take no whole-GPU work");
    }

    @Test
    void fairShareOwesTeamsTheirBudgetOfWhatInferenceLeavesAndRanksThemByTheWindow() {
        BudgetTree tree = new BudgetTree(List.of(new BudgetTree.Budget("a", null, 0.5), new BudgetTree.Budget("b", null, 0.5)));
        InferenceService svc = new InferenceService("chat", "serving", 4, 2);
        ServiceState chat = new ServiceState(svc, List.of(block(1, 6, 1), block(1, 7, 1)), 2, new double[] {1, 2}, new double[0], 2);
        List<ActiveJob> jobs = List.of(job("a-1", "a", 8, 3600, 0, new ActiveJob.Running(NOW - 60, block(0, 0, 8), false)),
                job("a-2", "a", 8, 3600, 0, null), job("b-1", "b", 2, 3600, 0, null));
        Teams teams = new Teams(tree, Map.of("a", new TeamUsage(1200, 1000), "b", new TeamUsage(500, 1000)));
        PlanningContext ctx = ContextBuilder.build(moment(List.of(NodeState.ready(n0), NodeState.ready(n1)), jobs, teams, List.of(chat)));
        assertNotNull(ctx.fairShare());
        // 16 GPUs less the 2 inference holds, half each; b asks for 2 only, so a (asking 16) is owed the other 12
        assertEquals(12.0, ctx.fairShare().owedNow().get("a"), 1e-9);
        assertEquals(2.0, ctx.fairShare().owedNow().get("b"), 1e-9);
        assertEquals(1.2, ctx.fairShare().ratio().get("a"), 1e-9);
        assertEquals(0.5, ctx.fairShare().ratio().get("b"), 1e-9);
        assertEquals(6, ctx.occupancy().freeOn(1), "inference replicas hold their GPUs");
    }

    @Test
    void servicesAreForecastFromTheDemandTheyShowed() {
        InferenceService svc = new InferenceService("chat", "serving", 4, 2);
        double[] steps = new double[200];
        for (int i = 0; i < steps.length; i++) steps[i] = i % 96 < 48 ? 2 : 6;
        ServiceState chat = new ServiceState(svc, List.of(block(0, 7, 1)), 3, steps, new double[] {5, 6}, 7);
        PlanningContext.ServiceView v = ContextBuilder.build(moment(List.of(NodeState.ready(n0)), List.of(), null, List.of(chat))).services().get("chat");
        DemandForecaster expected = new DemandForecaster(96, 7);
        for (double d : steps) expected.observe(d);
        assertEquals(List.of(1, 3, 7), List.of(v.heldGpus(), v.reservedGpus(), v.historicalPeakGpus()));
        assertEquals(java.util.Arrays.toString(expected.forecast(16)), java.util.Arrays.toString(v.forecast()));
        assertEquals(6.0, v.recentPeak(2));
    }

    @Test
    void aMomentWhoseJobsShareAGpuIsRefusedNamingTheJob() {
        List<ActiveJob> jobs = List.of(job("x", "t", 4, 3600, 0, new ActiveJob.Running(NOW, block(0, 0, 4), false)),
                job("y", "t", 4, 3600, 0, new ActiveJob.Running(NOW, block(0, 2, 4), false)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ContextBuilder.build(moment(List.of(NodeState.ready(n0)), jobs, null, List.of())));
        assertTrue(e.getMessage().startsWith("job y holds GPUs that are already busy"), e.getMessage());
    }
}
