package dev.horizon.allocator.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HorizonPolicyTest {
    static final long NOW = 36_000;
    private final Cluster cluster = Cluster.homogeneous(8, 8, "H100-80GB", 81_559);
    private final Contract resumable = new Contract(1800, true, 120);
    private final Contract rigid = new Contract(0, false, 0);

    private RunningJob running(Occupancy o, String id, double weight, int gpus, long startedAgo, boolean fill, Contract c) {
        Placement p = o.findBlock(gpus);
        o.occupy(p);
        return new RunningJob(id, "t", JobClass.TRAINING, weight, gpus, NOW - startedAgo, NOW - startedAgo, NOW + 7200, c, p, fill);
    }

    private static PendingJob pending(String id, double weight, int gpus, Contract c) {
        return PendingJob.builder().id(id).team("t").jobClass(JobClass.TRAINING).weight(weight).gpus(gpus).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(3600).contract(c).build();
    }

    private PlanningContext ctx(Occupancy o, List<RunningJob> running, List<PendingJob> pending, double[] forecast) {
        InferenceService svc = new InferenceService("svc", "serving", 4, 2);
        return new PlanningContext(NOW, 900, 16, cluster, o, running, pending,
                forecast == null ? Map.of() : Map.of("svc", new PlanningContext.ServiceView(svc, 0, 0, forecast, 4)));
    }

    @Test
    void reservationRampsEarlyEnoughForTheSwapCap() {
        InferenceService svc = new InferenceService("svc", "serving", 4, 2);
        double[] forecast = {0, 0, 0, 0, 5, 5};
        int[] path = HorizonPolicy.reservationPath(new PlanningContext.ServiceView(svc, 0, 0, forecast, 6), 6);
        // the forecast's 5 GPUs at step 4 and no headroom, reachable at 2 GPUs a step only from 1 at step 2
        assertArrayEquals(new int[] {0, 0, 1, 3, 5, 5}, new int[] {path[0], path[1], path[2], path[3], path[4], path[5]});
        for (int t = 1; t < path.length; t++) assertTrue(path[t] - path[t - 1] <= 2, "swap cap broken at step " + t);
    }

    @Test
    void workInsideItsMinimumRuntimeIsNeverPreemptedForValue() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "young", 1, 8, 600, false, resumable));
        Decision d = new HorizonPolicy().decide(ctx(o, run, List.of(pending("vip", 8, 4, resumable)), null));
        assertTrue(d.preemptions().isEmpty());
        assertTrue(d.starts().isEmpty());
        assertTrue(d.waitReasons().containsKey("vip"), "a waiting job always has a reason");
    }

    @Test
    void lowerValueResumableWorkPastItsMinimumRuntimeMakesRoom() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "old-low", 1, 4, 7200, false, resumable),
                running(o, "old-rigid", 1, 4, 7200, false, rigid));
        Decision d = new HorizonPolicy().decide(ctx(o, run, List.of(pending("vip", 8, 4, resumable)), null));
        assertEquals(List.of("old-low"), d.preemptions(), "only the resumable job may be preempted for value");
        assertEquals("vip", d.starts().get(0).jobId());
    }

    @Test
    void equalWeightNeverPreempts() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "peer", 4, 8, 7200, false, resumable));
        Decision d = new HorizonPolicy().decide(ctx(o, run, List.of(pending("same", 4, 4, resumable)), null));
        assertTrue(d.preemptions().isEmpty());
    }

    @Test
    void onlyResumableWorkRunsOnLentGpus() {
        Occupancy o = new Occupancy(cluster);
        double[] peakSoon = new double[16];
        java.util.Arrays.fill(peakSoon, 1, 16, 5); // inference wants 7 GPUs from the next step on
        List<PendingJob> waiting = new ArrayList<>(List.of(pending("quant", 2, 4, rigid), pending("train", 1, 4, resumable)));
        Decision d = new HorizonPolicy().decide(ctx(o, List.of(), waiting, peakSoon));
        assertEquals(1, d.starts().size());
        Decision.Start s = d.starts().get(0);
        assertEquals("train", s.jobId());
        assertTrue(s.fill(), "started on GPUs the reservation will want back");
        assertFalse(d.waitReasons().get("quant").isEmpty());
    }

    @Test
    void runningWorkIsInheritedWhereItIs() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "a", 2, 4, 7200, false, resumable));
        Decision d = new HorizonPolicy().decide(ctx(o, run, List.of(pending("b", 1, 4, resumable)), null));
        assertEquals(1, d.starts().size());
        Placement b = d.starts().get(0).placement();
        Occupancy check = new Occupancy(cluster);
        check.occupy(run.get(0).placement());
        assertTrue(check.isFree(b), "the new job goes beside the running one, which keeps its GPUs");
        assertTrue(d.preemptions().isEmpty());
    }

    @Test
    void penaltyOutsideDharmasRangeIsRejected() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new HorizonPolicy.Settings(0.99, 2.0));
    }

    @Test
    void theDecisionSaysWhenEachWaitingJobStartsAndUnderWhichRule() {
        Occupancy o = new Occupancy(cluster);
        // every GPU busy for the next hour: a job of the same value waits for a later step
        List<RunningJob> run = new ArrayList<>();
        while (o.findBlock(8) != null) run.add(running(o, "busy-" + run.size(), 1, 8, 7200, false, rigid));
        Decision d = new HorizonPolicy().decide(ctx(o, run, List.of(pending("later", 1, 8, rigid)), null));
        assertTrue(d.starts().isEmpty());
        assertEquals(Decision.WaitRule.PLANNED_START, d.waitRule("later"));
        assertTrue(d.plannedStarts().get("later") > NOW, "planned for a later step: " + d.plannedStarts());
        assertEquals("planned-start", d.waitRule("later").label());
        assertEquals(Decision.WaitRule.NO_ROOM_IN_HORIZON, d.waitRule("unknown"));
    }

    @Test
    void aSolverRunLeavesItsStatisticsInTheDecisionAndTheHeuristicNone() {
        Occupancy o = new Occupancy(cluster);
        PlanningContext ctx = ctx(o, List.of(), List.of(pending("a", 1, 4, resumable)), null);
        assertTrue(new HorizonPolicy().decide(ctx).solverStats().isEmpty());
        Decision d = new HorizonPolicy("cpsat", new dev.horizon.allocator.cpsat.CpSatPlanner(1, 16)).decide(ctx(new Occupancy(cluster), List.of(),
                List.of(pending("a", 1, 4, resumable)), null));
        assertEquals(1, d.solverStats().size());
        assertEquals(d.planObjective(), d.solverStats().get(0).objective(), 1e-9);
    }
}
