package dev.horizon.forecast;

import java.util.Arrays;

/**
 * Forecasts one inference service's GPU demand per step from what it has observed: a seasonal
 * envelope (the highest demand seen in the same slot of the day, give or take one slot, over the
 * last {@code lookbackDays} days), scaled by how much busier the last two hours were than the same
 * hours of the seasonal profile, and never below the last observed demand. It is recalibrated on
 * every observation. With at least two weeks of history the same weekday's slot is included too.
 */
public final class DemandForecaster {
    private final int stepsPerDay;
    private final int lookbackDays;
    private double[] observed = new double[256];
    private int count;

    public DemandForecaster(int stepsPerDay, int lookbackDays) {
        if (stepsPerDay < 1) throw new IllegalArgumentException("stepsPerDay must be >= 1");
        this.stepsPerDay = stepsPerDay;
        this.lookbackDays = lookbackDays;
    }

    /** Records the demand seen in the next step (steps arrive in order). */
    public void observe(double gpus) {
        if (count == observed.length) observed = Arrays.copyOf(observed, count * 2);
        observed[count++] = gpus;
    }

    public int observedSteps() {
        return count;
    }

    /** Highest demand observed so far. */
    public double peak() {
        double peak = 0;
        for (int i = 0; i < count; i++) peak = Math.max(peak, observed[i]);
        return peak;
    }

    /** Demand forecast for the next {@code steps} steps (index 0 = the step after the last observed). */
    public double[] forecast(int steps) {
        double[] out = new double[steps];
        double level = level();
        double last = count > 0 ? observed[count - 1] : 0;
        for (int k = 0; k < steps; k++) {
            int t = count + k;
            double envelope = 0;
            for (int day = 1; day <= lookbackDays; day++) envelope = Math.max(envelope, around(t - day * stepsPerDay));
            if (count >= 14 * stepsPerDay) envelope = Math.max(envelope, around(t - 7 * stepsPerDay));
            // persistence matters most for the next few steps and fades over two hours
            double persistence = last * Math.max(0, 1 - k / 8.0);
            out[k] = Math.max(envelope * level, persistence);
        }
        return out;
    }

    /** Ratio of the last 8 observed steps to the mean seasonal profile of the same slots, in [1, 3]. */
    private double level() {
        if (count < stepsPerDay + 8) return 1;
        double recent = 0, profile = 0;
        for (int i = count - 8; i < count; i++) {
            recent += observed[i];
            double sum = 0;
            int days = 0;
            for (int day = 1; day <= lookbackDays && i - day * stepsPerDay >= 0; day++, days++) sum += observed[i - day * stepsPerDay];
            profile += days == 0 ? 0 : sum / days;
        }
        if (profile < 1e-9) return recent > 0 ? 3 : 1;
        return Math.min(3, Math.max(1, recent / profile));
    }

    private double around(int t) {
        double m = 0;
        for (int j = -1; j <= 1; j++) {
            int i = t + j;
            if (i >= 0 && i < count) m = Math.max(m, observed[i]);
        }
        return m;
    }
}
