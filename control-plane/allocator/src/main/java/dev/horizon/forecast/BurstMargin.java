package dev.horizon.forecast;

import java.util.Arrays;

/**
 * How many GPUs an inference service should hold for the next minute, from the minutes it has observed only. A rule
 * sizes the next minute from the busiest of the last few minutes, plus a margin: added GPUs (a service whose bursts
 * are a few requests arriving at once) or a factor (one whose demand swings in proportion to its level). Each rule's
 * margin is the {@code quantile} of what the observed minutes (a day at most) needed over their busiest recent minute,
 * so each covers that share of those minutes; of the rules, the one that would have held the fewest GPUs over them is
 * used.
 */
public final class BurstMargin {
    /** Minutes a rule looks back over. */
    private static final int[] LOOKBACKS = {5, 15};
    private final double quantile;

    public BurstMargin(double quantile) {
        if (!(quantile > 0 && quantile < 1)) throw new IllegalArgumentException("quantile must be in (0, 1)");
        this.quantile = quantile;
    }

    /** GPUs to hold after the observed minutes (oldest first); 0 when nothing has been observed. */
    public int gpus(double[] observed) {
        if (observed.length == 0) return 0;
        double bestMean = Double.MAX_VALUE;
        int best = (int) Math.ceil(observed[observed.length - 1] - 1e-9);
        for (int lookback : LOOKBACKS) {
            double[] before = busiestBefore(observed, lookback);
            if (before.length == 0) continue;
            double recent = 0;
            for (int i = Math.max(0, observed.length - lookback); i < observed.length; i++) recent = Math.max(recent, observed[i]);
            int offset = observed.length - before.length;
            double added = quantileOf(observed, before, offset, false);
            double factor = quantileOf(observed, before, offset, true);
            double meanAdded = meanHeld(before, added, false), meanFactor = Double.isFinite(factor) ? meanHeld(before, factor, true) : Double.MAX_VALUE;
            if (meanAdded < bestMean) {
                bestMean = meanAdded;
                best = size(recent, added, false);
            }
            if (meanFactor < bestMean) {
                bestMean = meanFactor;
                best = size(recent, factor, true);
            }
        }
        return best;
    }

    private static int size(double base, double margin, boolean factor) {
        return (int) Math.ceil((factor ? base * margin : base + margin) - 1e-9);
    }

    /** The margin that covered the quantile of the minutes: above their busiest minute before (added) or over it (factor). */
    private double quantileOf(double[] observed, double[] before, int offset, boolean factor) {
        double[] need = new double[before.length];
        for (int i = 0; i < before.length; i++) {
            double d = observed[offset + i];
            need[i] = factor ? (d <= 1e-9 ? 0 : before[i] <= 1e-9 ? Double.POSITIVE_INFINITY : d / before[i]) : d - before[i];
        }
        Arrays.sort(need);
        return Math.max(factor ? 1 : 0, need[Math.min(need.length - 1, (int) (quantile * need.length))]);
    }

    private static double meanHeld(double[] before, double margin, boolean factor) {
        double sum = 0;
        for (double b : before) sum += size(b, margin, factor);
        return sum / before.length;
    }

    /** For each minute from {@code lookback} on, the busiest of the {@code lookback} minutes before it (a sliding maximum). */
    private static double[] busiestBefore(double[] observed, int lookback) {
        int n = observed.length - lookback;
        if (n <= 0) return new double[0];
        double[] out = new double[n];
        int[] deque = new int[observed.length];
        int head = 0, tail = 0;
        for (int i = 0; i < observed.length; i++) {
            if (i >= lookback) out[i - lookback] = observed[deque[head]];
            while (tail > head && observed[deque[tail - 1]] <= observed[i]) tail--;
            deque[tail++] = i;
            while (deque[head] <= i - lookback) head++;
        }
        return out;
    }
}
