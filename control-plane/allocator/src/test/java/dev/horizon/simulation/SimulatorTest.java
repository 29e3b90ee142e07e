package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.Cluster;
import dev.horizon.allocator.Decision;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.allocator.InferenceService;
import dev.horizon.allocator.PendingJob;
import dev.horizon.allocator.Placement;
import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
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
        };
    }

    @Test
    void sameScenarioSamePolicySameResult() throws Exception {
        Scenario s = Scenarios.build("mixed", new ScenarioOptions(5, 16, 1, 1.5, 0.4, 0, null));
        SimResult a = new Simulator(s, new HorizonPolicy()).run(f -> { });
        SimResult b = new Simulator(s, new HorizonPolicy()).run(f -> { });
        assertEquals(a.segments(), b.segments());
        assertEquals(a.rtSteps(), b.rtSteps());
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
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new Simulator(s, cheat).run(f -> { }));
        assertTrue(e.getMessage().contains("not waiting") || e.getMessage().contains("before it arrived"), e.getMessage());
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
        assertThrows(IllegalStateException.class, () -> new Simulator(s, overlap).run(f -> { }));
    }

    @Test
    void aWrongWidthIsRefusedButAnElasticPowerOfTwoIsTaken() {
        SimJob elastic = new SimJob("e", "t", JobClass.TRAINING, 1, 4, 1, 0, 3600, null, Contract.defaultFor(JobClass.TRAINING));
        Function<Integer, SchedulingPolicy> startAt = width -> rogue(ctx -> {
            Decision d = new Decision();
            ctx.pending().forEach(j -> d.start(j.id(), ctx.occupancy().findBlock(width), false));
            return d;
        });
        assertThrows(IllegalStateException.class, () -> new Simulator(scenario(List.of(elastic), List.of()), startAt.apply(3)).run(f -> { }));
        SimResult r = new Simulator(scenario(List.of(elastic), List.of()), startAt.apply(2)).run(f -> { });
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
    void inferenceNeverChangesByMoreThanTheSwapCapPerStep() {
        double[] demand = {0, 0, 6, 6, 6, 0, 0, 0};
        ServiceDemand svc = new ServiceDemand(new InferenceService("svc", "s", 4, 2), new double[96], demand);
        SimResult r = new Simulator(scenario(List.of(), List.of(svc)), new HorizonPolicy()).run(f -> { });
        for (int k = 1; k < r.rtSteps().size(); k++) {
            int change = Math.abs(r.rtSteps().get(k).allocatedGpus() - r.rtSteps().get(k - 1).allocatedGpus());
            assertTrue(change <= 2, "swapped " + change + " GPUs at step " + k);
        }
        assertTrue(r.rtSteps().get(2).allocatedGpus() < 6, "a jump the forecast did not see is capped");
    }

    @Test
    void fifoHoldsTheHistoricalPeakAllDay() {
        double[] history = new double[96];
        history[50] = 3.2;
        ServiceDemand svc = new ServiceDemand(new InferenceService("svc", "s", 4, 8), history, new double[] {1, 1, 1, 1, 1, 1, 1, 1});
        SimResult r = new Simulator(scenario(List.of(), List.of(svc)), new FifoPolicy()).run(f -> { });
        r.rtSteps().forEach(step -> assertEquals(4, step.allocatedGpus()));
        assertEquals(8 * 1.0 / (8 * 8), r.metrics().utilization(), 1e-9, "utilization counts inference at the demand it served");
    }
}
