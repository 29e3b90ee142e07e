package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.actions.reclaim.Reclaim;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.baseline.FifoPolicy;
import dev.horizon.trace.ScenarioOptions;
import dev.horizon.trace.Scenarios;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SimulatorTest {
    private static final Cluster EIGHT = Cluster.homogeneous(8, 8, "H100-80GB", 81_559);

    private static Scenario scenario(List<SimJob> jobs, List<ServiceDemand> services) {
        return new Scenario("t", EIGHT, 900, 8, 8, jobs, services, List.of(), Map.of());
    }

    private static SimJob job(String id, long arrival, int gpus, long duration, Contract c) {
        return new SimJob(id, "t", JobClass.TRAINING, 1, gpus, gpus, arrival, duration, null, c);
    }

    /** A policy that commits whatever {@code rogue} decides, to check the simulator's own rule checks. */
    private static SchedulingPolicy rogue(Function<PlanningContext, Decision> rogue) {
        return new SchedulingPolicy() {
            public String name() {
                return "rogue";
            }

            public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
                return Map.of();
            }

            public boolean lendsReservation() {
                return false;
            }

            public Decision decide(PlanningContext ctx) {
                return rogue.apply(ctx);
            }

            public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpus, long now, UnmetDemandCost cost) {
                return Reclaim.victims(running, gpus, now, cost);
            }
        };
    }

    @Test
    void sameScenarioSamePolicySameResult() throws Exception {
        Scenario s = Scenarios.build("mixed", new ScenarioOptions(5, 16, 1, 1.5, 0.4, 0, null));
        SimResult a = new Simulator(s, new HorizonPolicy()).run(f -> { });
        SimResult b = new Simulator(s, new HorizonPolicy()).run(f -> { });
        assertEquals(a.segments(), b.segments());
        assertEquals(a.rtMinutes(), b.rtMinutes());
    }

    private static int violations(SimResult r, Audit.Kind kind) {
        return r.audit().byKind().getOrDefault(kind.key, 0);
    }

    @Test
    void aStartBeforeArrivalIsRefused() {
        Scenario s = scenario(List.of(job("early", 0, 1, 600, Contract.defaultFor(JobClass.TRAINING)),
                job("late", 5000, 1, 600, Contract.defaultFor(JobClass.TRAINING))), List.of());
        SchedulingPolicy cheat = rogue(ctx -> {
            Decision d = new Decision();
            if (ctx.now() == 0) d.start("late", ctx.occupancy().findBlock(1), false);
            return d;
        });
        SimResult r = new Simulator(s, cheat).run(f -> { });
        assertEquals(1, violations(r, Audit.Kind.START_BEFORE_ARRIVAL), r.audit().toString());
        assertTrue(r.segments().stream().noneMatch(seg -> seg.jobId().equals("late") && seg.started()), "the early start is refused");
    }

    @Test
    void aGpuGivenTwiceIsRefused() {
        Scenario s = scenario(List.of(job("a", 0, 2, 3600, Contract.defaultFor(JobClass.TRAINING)),
                job("b", 0, 2, 3600, Contract.defaultFor(JobClass.TRAINING))), List.of());
        SchedulingPolicy overlap = rogue(ctx -> {
            Decision d = new Decision();
            for (PendingJob j : ctx.pending()) d.start(j.id(), new Placement(List.of(new Placement.Slice(0, 0, 2))), false);
            return d;
        });
        SimResult r = new Simulator(s, overlap).run(f -> { });
        assertTrue(violations(r, Audit.Kind.GPU_GIVEN_TWICE) >= 1, r.audit().toString());
        List<Segment> runs = r.segments().stream().filter(Segment::started).sorted(java.util.Comparator.comparingLong(Segment::startSeconds)).toList();
        assertEquals(2, runs.size());
        assertTrue(runs.get(1).startSeconds() >= runs.get(0).endSeconds(), "the second start on GPUs 0-1 waits until the first job is done");
    }

    @Test
    void aWrongWidthIsRefusedButAnElasticPowerOfTwoIsTaken() {
        SimJob elastic = new SimJob("e", "t", JobClass.TRAINING, 1, 4, 1, 0, 3600, null, Contract.defaultFor(JobClass.TRAINING));
        Function<Integer, SchedulingPolicy> startAt = width -> rogue(ctx -> {
            Decision d = new Decision();
            ctx.pending().forEach(j -> d.start(j.id(), ctx.occupancy().findBlock(width), false));
            return d;
        });
        SimResult wrong = new Simulator(scenario(List.of(elastic), List.of()), startAt.apply(3)).run(f -> { });
        assertTrue(violations(wrong, Audit.Kind.GANG_STARTED_PARTLY) >= 1, "3 of a 4-GPU gang: " + wrong.audit());
        SimResult r = new Simulator(scenario(List.of(elastic), List.of()), startAt.apply(2)).run(f -> { });
        assertTrue(r.audit().clean(), r.audit().toString());
        Segment seg = r.segments().get(0);
        assertEquals(2, seg.gpus());
        assertEquals(7200, seg.endSeconds() - seg.startSeconds(), "4 GPU-hours of work on 2 GPUs take 2 hours");
    }

    @Test
    void preemptedResumableWorkKeepsItsProgressLessTheCheckpoint() {
        Contract resumable = new Contract(0, true, 100);
        Scenario s = scenario(List.of(job("a", 0, 8, 3000, resumable)), List.of());
        SchedulingPolicy stopAtFirstStep = rogue(ctx -> {
            Decision d = new Decision();
            if (ctx.now() == 900 && !ctx.running().isEmpty()) d.preempt("a");
            else ctx.pending().forEach(j -> d.start(j.id(), ctx.occupancy().findBlock(j.gpus()), false));
            return d;
        });
        SimResult r = new Simulator(s, stopAtFirstStep).run(f -> { });
        assertEquals(800, r.segments().get(0).keptSeconds());
        assertEquals(8 * (800 + 2200) / (8 * 8 * 900.0), r.metrics().utilization(), 1e-9, "the checkpoint's 100 s are lost, not utilized");
        assertEquals(8 * 100 / 3600.0, r.metrics().lostGpuHours(), 1e-9);
        Segment second = r.segments().get(1);
        assertEquals(1800, second.startSeconds(), "restarted at the next event, the following step");
        assertEquals(1800 + 2200, second.endSeconds(), "3000 s of work less the 800 s kept");
        assertEquals(1, r.metrics().jobsCompleted());
    }

    @Test
    void inferenceNeverChangesByMoreThanTheSwapCapWithinAStep() {
        double[] demand = {0, 0, 6, 6, 6, 0, 0, 0};
        ServiceDemand svc = new ServiceDemand(new InferenceService("svc", "s", 4, 2), new double[96], demand);
        SimResult r = new Simulator(scenario(List.of(), List.of(svc)), new HorizonPolicy()).run(f -> { });
        assertEquals(8 * 15, r.rtMinutes().size(), "one record a minute");
        int base = -1;
        for (int k = 1; k < 8; k++) {
            base = r.rtMinutes().get(k * 15 - 1).heldGpus();
            for (int m = k * 15; m < (k + 1) * 15; m++) {
                int change = Math.abs(r.rtMinutes().get(m).heldGpus() - base);
                assertTrue(change <= 2, "swapped " + change + " GPUs in step " + k);
            }
        }
        assertTrue(r.rtMinutes().subList(30, 45).stream().allMatch(m -> m.heldGpus() < 6), "a jump nobody observed before is capped");
        assertTrue(r.rtMinutes().get(30).heldGpus() <= 1, "the first minute of the jump is sized from the minute before it");
    }

    @Test
    void fifoHoldsTheHistoricalPeakAllDay() {
        double[] history = new double[96];
        history[50] = 3.2;
        ServiceDemand svc = new ServiceDemand(new InferenceService("svc", "s", 4, 8), history, new double[] {1, 1, 1, 1, 1, 1, 1, 1});
        SimResult r = new Simulator(scenario(List.of(), List.of(svc)), new FifoPolicy()).run(f -> { });
        r.rtMinutes().forEach(minute -> assertEquals(4, minute.heldGpus()));
        assertEquals(8 * 1.0 / (8 * 8), r.metrics().utilization(), 1e-9, "utilization counts inference at the demand it served");
    }

    @Test
    void aGpuTakenBackFromBatchWorkServesOnlyAfterTheReclaimGracePeriod() {
        double[] minutes = new double[120];
        java.util.Arrays.fill(minutes, 30, 120, 2.0);
        ServiceDemand svc = ServiceDemand.perMinute(new InferenceService("svc", "s", 4, 8), new double[96 * 15], minutes, 15);
        Scenario s = scenario(List.of(job("batch", 0, 8, 7200, new Contract(0, true, 0))), List.of(svc));
        SchedulingPolicy fromLastMinute = new SchedulingPolicy() {
            public String name() {
                return "last-minute";
            }

            public Map<String, Integer> inferenceReservation(PlanningContext ctx) {
                return Map.of("svc", 0);
            }

            public boolean lendsReservation() {
                return false;
            }

            public Decision decide(PlanningContext ctx) {
                Decision d = new Decision();
                ctx.pending().forEach(j -> {
                    Placement p = ctx.occupancy().findBlock(j.gpus());
                    if (p != null) d.start(j.id(), p, false);
                });
                return d;
            }

            public Map<String, Integer> inferenceTargets(long now, Map<String, PlanningContext.ServiceView> services) {
                double[] seen = services.get("svc").observedMinutes();
                return Map.of("svc", (int) Math.ceil(seen[seen.length - 1]));
            }

            public List<RunningJob> inferenceVictims(List<RunningJob> running, int gpus, long now, UnmetDemandCost cost) {
                return Reclaim.victims(running, gpus, now, cost);
            }
        };
        RtMinute first = new Simulator(s, fromLastMinute).run(f -> { }).rtMinutes().get(31);
        assertEquals(2, first.heldGpus(), "sized from minute 30, taken from the batch job");
        assertEquals(0, first.servingGpus());
        assertEquals(2 * 30.0, first.servedGpuSeconds(), 1e-9, "both serve the second half of the minute");
        assertTrue(!first.met());
        RtMinute atOnce = new Simulator(s, fromLastMinute, 0).run(f -> { }).rtMinutes().get(31);
        assertTrue(atOnce.met() && atOnce.servedGpuSeconds() == 120, "without a grace period they serve the whole minute");
    }
}
