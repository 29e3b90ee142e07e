package dev.horizon.allocator.actions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.allocate.Allocate;
import dev.horizon.allocator.actions.drain.LeaveDrainedNodes;
import dev.horizon.allocator.actions.lend.Lend;
import dev.horizon.allocator.actions.preempt.ValuePreemption;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each of Horizon's actions alone, on a small snapshot of two 8-GPU nodes. */
class ActionsTest {
    private static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(1800, true, 120);
    private static final Contract RIGID = new Contract(0, false, 0);
    private final Cluster cluster = Cluster.homogeneous(16, 8, "H100-80GB", 81_559);

    private static RunningJob running(Occupancy o, String id, double weight, int node, int gpus, long startedAgo, boolean fill, Contract c) {
        Placement p = new Placement(List.of(new Placement.Slice(node, 0, gpus)));
        o.occupy(p);
        return new RunningJob(id, "t", JobClass.TRAINING, weight, gpus, NOW - startedAgo, NOW - startedAgo, NOW + 7200, c, p, fill);
    }

    private static PendingJob pending(String id, double weight, int gpus, long seconds, Contract c) {
        return PendingJob.builder().id(id).team("t").jobClass(JobClass.TRAINING).weight(weight).gpus(gpus).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(seconds).contract(c).build();
    }

    private Session session(Occupancy o, List<RunningJob> running, List<PendingJob> pending) {
        return Session.open(new PlanningContext(NOW, 900, 16, cluster, o, running, pending, Map.of()));
    }

    @Test
    void drainTakesUnprotectedWorkOffADrainedNodeAndKeepsProtectedWork() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "old", 1, 0, 4, 7200, false, RESUMABLE), running(o, "young", 1, 1, 4, 60, false, RESUMABLE));
        o.drain(0);
        o.drain(1);
        Session s = session(o, run, List.of());
        LeaveDrainedNodes.run(s);
        assertEquals(List.of("old"), s.decision().preemptions());
        assertEquals(List.of("young"), s.context().running().stream().map(RunningJob::id).toList());
        assertEquals(0, o.freeOn(0), "a drained node's freed GPUs take no new work");
    }

    @Test
    void aJobWithNoRoomInTheHorizonIsToldWhichNodesOfItsModelTakeNoNewWork() {
        Cluster two = Cluster.homogeneous(16, 8, "H100-80GB", 81_559);
        Occupancy o = new Occupancy(two);
        Placement whole = new Placement(List.of(new Placement.Slice(0, 0, 8)));
        o.occupy(whole);
        RunningJob day = new RunningJob("day", "t", JobClass.TRAINING, 8, 8, NOW - 600, NOW - 600, NOW + 86_400, RIGID, whole, false);
        o.drain(1);
        Decision d = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, two, o, List.of(day),
                List.of(pending("waits", 1, 8, 3600, RESUMABLE)), Map.of()));
        String reason = d.waitReasons().get("waits");
        assertTrue(reason.startsWith("no room for 8 GPUs") && reason.endsWith("; " + two.nodes().get(1).name()
                + " takes no new work now (drained by an admin, or unhealthy)"), reason);
    }

    @Test
    void allocateStartsWhatThePlanPlacesNowAndSaysWhenTheRestStarts() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "busy", 1, 0, 8, 60, false, RESUMABLE));
        Session s = session(o, run, List.of(pending("now", 2, 8, 3600, RESUMABLE), pending("later", 1, 8, 3600, RESUMABLE)));
        List<PendingJob> notStarted = new Allocate(0.99, new HeuristicPlanner()::plan).run(s);
        assertEquals(List.of("now"), s.decision().starts().stream().map(d -> d.jobId()).toList());
        assertEquals(List.of("later"), notStarted.stream().map(PendingJob::id).toList());
        assertTrue(s.decision().waitReasons().get("later").startsWith("planned to start in about"), s.decision().waitReasons().get("later"));
    }

    /**
     * An idle cluster, and a job as wide as the room the forecast leaves at one step of its run. Its
     * reason names the rise (the busiest minute of that slot), where it said only that "higher-value work and the inference
     * reservation" held GPUs that stood idle.
     */
    @Test
    void aJobKeptOutOfIdleGpusByAReservationRiseWithinItsRunSaysWhereItRises() {
        double[] forecast = new double[16];
        forecast[0] = 1;
        forecast[6] = 4; // 4 GPUs at 10:00 + 6 steps of 15 min = 11:30, inside a 2 h run started now (ramped: 2 at 11:15)
        dev.horizon.allocator.model.InferenceService svc = new dev.horizon.allocator.model.InferenceService("chat", "serving", 4, 2);
        PlanningContext ctx = new PlanningContext(NOW, 900, 16, cluster, new Occupancy(cluster), List.of(),
                List.of(pending("wide", 1, 14, 7200, RIGID), pending("short", 1, 14, 900, RIGID)),
                Map.of("chat", new PlanningContext.ServiceView(svc, 0, 0, forecast, 4)));
        Session s = Session.open(ctx);
        new Allocate(0.99, new HeuristicPlanner()::plan).run(s);
        String wide = s.decision().waitReasons().get("wide");
        assertTrue(wide.startsWith("planned to start in about") && wide.endsWith(
                "; within its estimated 2.0 h run the inference reservation rises to 4 GPUs (1970-01-01T11:30:00Z)"), wide);
        assertTrue(s.decision().starts().stream().anyMatch(d -> d.jobId().equals("short")) || !s.decision().waitReasons().get("short").contains("rises"),
                "a run that ends before the rise is not said to meet it");
    }

    @Test
    void valuePreemptionTakesGpusOnlyFromOutrankedUnprotectedResumableWork() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "low-old", 1, 0, 8, 7200, false, RESUMABLE), running(o, "low-young", 1, 1, 8, 60, false, RESUMABLE));
        PendingJob vip = pending("vip", 8, 8, 3600, RESUMABLE);
        Session s = session(o, run, List.of(vip));
        List<PendingJob> left = ValuePreemption.run(s, List.of(vip, pending("peer", 1, 8, 3600, RESUMABLE)));
        assertEquals(List.of("low-old"), s.decision().preemptions());
        assertEquals("vip", s.decision().starts().get(0).jobId());
        assertTrue(s.decision().starts().get(0).fill(), "without fair share a value preemptor starts as fill");
        assertEquals(List.of("peer"), left.stream().map(PendingJob::id).toList(), "equal weight takes nothing");
    }

    @Test
    void lendGivesIdleGpusToResumableWorkOnly() {
        Occupancy o = new Occupancy(cluster);
        Session s = session(o, List.of(), List.of());
        Lend.run(s, List.of(pending("rigid", 4, 8, 3600, RIGID), pending("resumable", 1, 8, 3600, RESUMABLE)));
        assertEquals(1, s.decision().starts().size());
        assertEquals("resumable", s.decision().starts().get(0).jobId());
        assertTrue(s.decision().starts().get(0).fill());
    }
}
