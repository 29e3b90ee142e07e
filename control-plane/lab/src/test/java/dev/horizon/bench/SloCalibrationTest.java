package dev.horizon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.simulation.Scenario;
import dev.horizon.simulation.ServiceDemand;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Each policy's inference knob is set to the service level on the day before the window, and on nothing else. */
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
        assertEquals(horizon.knob(), SloCalibration.calibrate(scenario(bursty, bursty), "horizon", 0.99).knob(), "Horizon's price of a missed minute too");
        assertNull(SloCalibration.calibrate(scenario(calm, calm), "fifo", 0.99), "FIFO holds inference at its peak: no knob");
    }
}
