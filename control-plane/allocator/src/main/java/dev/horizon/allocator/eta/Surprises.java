package dev.horizon.allocator.eta;

import dev.horizon.forecast.DurationEstimator;
import dev.horizon.forecast.RecentRuns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How runs really fell within the runs before them: for each run of every team's window, the share of the runs before
 * it (in that window) that were shorter (its probability integral transform). Were durations drawn from the window as
 * it stands, these would be spread evenly over 0..1; real work comes in bursts, so more fall near 0 and 1. Drawing a
 * job's quantile from these instead of evenly makes the draws as surprising as runs really were.
 *
 * @param sorted the shares, ascending (empty: no runs to learn from, draws stay even)
 */
record Surprises(double[] sorted) {
    /** Runs a window must have seen before its next run's share says anything. */
    static final int MIN_BEFORE = 5;
    /** Shares needed before they replace even draws. */
    static final int MIN_SHARES = 50;
    static final Surprises NONE = new Surprises(new double[0]);

    static Surprises of(DurationEstimator durations) {
        List<Double> shares = new ArrayList<>();
        for (RecentRuns w : durations.teamWindows()) {
            List<Long> runs = w.values();
            for (int i = MIN_BEFORE; i < runs.size(); i++) {
                long v = runs.get(i);
                int shorter = 0, same = 0;
                for (int k = 0; k < i; k++) {
                    if (runs.get(k) < v) shorter++;
                    else if (runs.get(k) == v) same++;
                }
                shares.add((shorter + 0.5 * same) / i);
            }
        }
        if (shares.size() < MIN_SHARES) return NONE;
        double[] s = shares.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        return new Surprises(s);
    }

    /** The share of runs that fell at or below window quantile u (u itself when nothing was learnt). */
    double cdf(double u) {
        if (sorted.length == 0) return u;
        int lo = 0, hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= u) lo = mid + 1;
            else hi = mid;
        }
        return lo / (double) sorted.length;
    }

    /** The window quantile at which a share p of runs fell (p itself when nothing was learnt). */
    double quantile(double p) {
        if (sorted.length == 0) return p;
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))];
    }
}
