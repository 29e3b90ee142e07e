package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.baseline.HpaSettings;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import dev.horizon.simulation.SimJob;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Each policy's inference knob is set to the service level on the day before the window, with its batch work, and on nothing
 * else, over both serving autoscalers.
 */
class SloCalibrationTest {
    private static final int DAY = 1440;

    /** A day of demand per minute: calm (flat at base) or bursty (jumps of up to 6 GPUs for a few minutes, seeded). */
    private static double[] day(double base, boolean bursty, long seed) {
        double[] d = new double[DAY];
        Random rng = new Random(seed);
        for (int m = 0; m < DAY; m++) d[m] = base + (bursty && rng.nextInt(20) == 0 ? 1 + rng.nextInt(6) : 0);
        return d;
    }

    private static double[] concat(double[] a, double[] b) {
        double[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Two days of history (the second is the day before the window) and a window day. */
    private static Scenario scenario(double[] dayBefore, double[] window) {
        ServiceDemand d = ServiceDemand.perMinute(new InferenceService("chat", "serving", 4, 16), concat(day(3, false, 0), dayBefore), window, 15);
        return new Scenario("calibration", Cluster.homogeneous(16, 8, "H100-80GB", 81_559), 900, 96, 96, List.of(), List.of(d), List.of(), Map.of());
    }

    @Test
    void theKnobIsChosenOnTheDayBeforeAndTheWindowNeverChangesIt() {
        double[] calm = day(3, false, 1), bursty = day(3, true, 2);
        SloCalibration.Choice onCalmDay = SloCalibration.calibrate(scenario(calm, calm), "kai", 0.99);
        assertEquals(onCalmDay.knob(), SloCalibration.calibrate(scenario(calm, bursty), "kai", 0.99).knob(), "the window's demand is never seen");
        SloCalibration.Choice onBurstyDay = SloCalibration.calibrate(scenario(bursty, calm), "kai", 0.99);
        assertNotEquals(onCalmDay.knob(), onBurstyDay.knob(), "a burstier day before needs more headroom: " + onBurstyDay);
        assertTrue(onCalmDay.metTarget() && onCalmDay.dayBeforeRtSloAttainment() >= 0.99, onCalmDay.toString());
        assertTrue(onBurstyDay.dayBeforeGpuHours() > onCalmDay.dayBeforeGpuHours(), onBurstyDay + " vs " + onCalmDay);

        SloCalibration.Choice horizon = SloCalibration.calibrate(scenario(bursty, calm), "horizon", 0.99);
        assertEquals(horizon.knob(), SloCalibration.calibrate(scenario(bursty, bursty), "horizon", 0.99).knob(), "Horizon's HPA too");
        assertNull(SloCalibration.calibrate(scenario(calm, calm), "fifo", 0.99), "FIFO holds inference at its peak: no knob");
    }

    @Test
    void everyPolicyWithAKnobIsCalibratedOverTheSameHpaSettings() {
        List<HpaSettings> peers = InferenceKnob.candidates("slurm").stream().map(InferenceKnob::settings).toList();
        assertEquals(24, peers.size(), "8 target utilizations and 3 stabilization windows");
        for (String policy : List.of("kai", "kueue", "horizon")) {
            assertEquals(peers, InferenceKnob.candidates(policy).stream().map(InferenceKnob::settings).toList(),
                    policy + ": as many settings and the same ones, so no policy's cheapest passing setting sits nearer the edge by having more to pick from");
        }
        double[] flat = day(3, false, 1);
        SloCalibration.Choice horizon = SloCalibration.calibrate(scenario(flat, flat), "horizon", 0.99);
        assertEquals(new InferenceKnob("horizon", new HpaSettings(0.9, 300)), horizon.knob(), "a flat day: the HPA at its default target");
        assertEquals(24, horizon.settingsTried());
        assertTrue(InferenceKnob.candidates("fifo").isEmpty(), "FIFO holds inference at its peak: no knob");
    }

    @Test
    void horizonServedByAnHpaSizesItsServicesAsTheHpaDoesAndPlansAsHorizon() {
        SchedulingPolicy served = new InferenceKnob("horizon", new HpaSettings(0.5, 300)).create();
        PlanningContext.ServiceView view = new PlanningContext.ServiceView(new InferenceService("chat", "serving", 4, 16), 0, 0, new double[0], 3,
                new double[] {2.9});
        assertEquals(Map.of("chat", 6), served.inferenceTargets(0, Map.of("chat", view)), "ceil(2.9 / 0.5): the HPA's rule");
        assertEquals("horizon", served.name());
        assertTrue(served.lendsReservation(), "Horizon still lends what inference does not hold");
    }

    @Test
    void theDayBeforeRunsTheBatchWorkSubmittedOverItAndNoneOfTheWindows() {
        double[] calm = day(3, false, 1);
        ServiceDemand d = ServiceDemand.perMinute(new InferenceService("chat", "serving", 4, 16), concat(day(3, false, 0), calm), calm, 15);
        SimJob inWindow = job("window-job", 600);
        SimJob early = job("submitted-at-the-day-before's-start", -86_400), late = job("submitted-a-minute-before-the-window", -60);
        Scenario window = new Scenario("calibration", Cluster.homogeneous(16, 8, "H100-80GB", 81_559), 900, 96, 96, List.of(inWindow), List.of(d),
                List.of(), Map.of(), null, null, List.of(), List.of(late, early));
        Scenario dayBefore = SloCalibration.dayBefore(window);
        assertEquals(List.of(early.arrivingAt(0), late.arrivingAt(86_340)), dayBefore.jobs(), "the prior arrivals, moved a day on, in arrival order");
        assertEquals(96, dayBefore.windowSteps());
    }

    private static SimJob job(String id, long arrival) {
        return new SimJob(id, "nlp", JobClass.TRAINING, 1, 8, 8, arrival, 3_600, null, Contract.defaultFor(JobClass.TRAINING));
    }
}
