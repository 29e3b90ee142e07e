package dev.horizon.forecast;

import java.util.Arrays;

/**
 * How many GPUs an inference service should hold for the next minute, from the minutes it has observed only: the
 * busiest of the last {@code lookback} minutes, plus the {@code quantile} of how far a minute rose above the busiest of
 * the {@code lookback} minutes before it, over every minute observed (a day at most). A steady service keeps a small
 * margin; a bursty one (requests of tens of seconds arriving a few a minute) keeps the margin its own bursts need.
 */
public final class BurstMargin {
    private final int lookback;
    private final double quantile;

    public BurstMargin(int lookback, double quantile) {
        if (lookback < 1) throw new IllegalArgumentException("lookback must be at least 1 minute");
        if (!(quantile > 0 && quantile < 1)) throw new IllegalArgumentException("quantile must be in (0, 1)");
        this.lookback = lookback;
        this.quantile = quantile;
    }

    /** GPUs to hold after the observed minutes (oldest first); 0 when nothing has been observed. */
    public int gpus(double[] observed) {
        if (observed.length == 0) return 0;
        double recent = 0;
        for (int i = Math.max(0, observed.length - lookback); i < observed.length; i++) recent = Math.max(recent, observed[i]);
        return (int) Math.ceil(recent + margin(observed) - 1e-9);
    }

    private double margin(double[] observed) {
        int n = observed.length - lookback;
        if (n <= 0) return 0;
        double[] rises = new double[n];
        // sliding maximum of the lookback minutes before each minute
        int[] deque = new int[observed.length];
        int head = 0, tail = 0;
        for (int i = 0; i < observed.length; i++) {
            if (i >= lookback) rises[i - lookback] = observed[i] - observed[deque[head]];
            while (tail > head && observed[deque[tail - 1]] <= observed[i]) tail--;
            deque[tail++] = i;
            while (deque[head] <= i - lookback) head++;
        }
        Arrays.sort(rises);
        return Math.max(0, rises[Math.min(n - 1, (int) (quantile * n))]);
    }
}
