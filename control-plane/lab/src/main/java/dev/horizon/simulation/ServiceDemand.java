package dev.horizon.simulation;

import dev.horizon.allocator.model.InferenceService;
import java.util.Arrays;

/**
 * A real-time inference service and its demand in GPUs, per minute and per planning step: history (before the window,
 * what the forecaster and autoscalers learn from) and window (what actually comes, hidden from policies until it has).
 * A minute's demand is the GPU-seconds of the requests running in it over 60 s; it is what the SLO is scored on. A step's
 * demand is the busiest minute of the step: the planner's 15-minute grid has to hold a step's bursts, not its mean.
 */
public record ServiceDemand(InferenceService service, double[] history, double[] window, double[] historyMinutes, double[] windowMinutes) {
    public static final int SECONDS_PER_MINUTE = 60;
    /** Demand given per step (scenario files, tests) is taken as flat over the step's minutes; steps are 15 minutes. */
    public static final int MINUTES_PER_GIVEN_STEP = 15;

    /** Demand per 15-minute step, flat inside each step. */
    public ServiceDemand(InferenceService service, double[] history, double[] window) {
        this(service, history, window, flat(history), flat(window));
    }

    /** Demand per minute; the steps of {@code minutesPerStep} minutes are each step's busiest minute. */
    public static ServiceDemand perMinute(InferenceService service, double[] historyMinutes, double[] windowMinutes, int minutesPerStep) {
        return new ServiceDemand(service, peaks(historyMinutes, minutesPerStep), peaks(windowMinutes, minutesPerStep), historyMinutes, windowMinutes);
    }

    private static double[] flat(double[] steps) {
        double[] out = new double[steps.length * MINUTES_PER_GIVEN_STEP];
        for (int k = 0; k < steps.length; k++) Arrays.fill(out, k * MINUTES_PER_GIVEN_STEP, (k + 1) * MINUTES_PER_GIVEN_STEP, steps[k]);
        return out;
    }

    private static double[] peaks(double[] minutes, int perStep) {
        double[] out = new double[minutes.length / perStep];
        for (int k = 0; k < out.length; k++) {
            for (int m = k * perStep; m < (k + 1) * perStep; m++) out[k] = Math.max(out[k], minutes[m]);
        }
        return out;
    }
}
