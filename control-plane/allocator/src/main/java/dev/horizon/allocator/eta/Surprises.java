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
 * job's quantile from these instead of evenly makes the draws as surprising as runs really were. A run longer than every
 * run before it (share 1) or shorter than every one (share 0) also says by how much: a window says nothing of how far
 * beyond its longest run the next may go, yet in the Philly bench's schedules one run in twenty outgrew its team's window,
 * by 1.3 times its longest at the median and 6 times at the 90th percentile. Draws at those shares go as far beyond the
 * window as runs went.
 *
 * @param sorted          the shares, ascending (empty: no runs to learn from, draws stay even)
 * @param longerThanAll   for each run longer than every run before it, its length over the longest of them, ascending
 * @param shorterThanAll  for each run shorter than every run before it, its length over the shortest of them, ascending
 */
record Surprises(double[] sorted, double[] longerThanAll, double[] shorterThanAll) {
    /** Runs a window must have seen before its next run's share says anything. */
    static final int MIN_BEFORE = 5;
    /** Shares needed before they replace even draws. */
    static final int MIN_SHARES = 50;
    static final Surprises NONE = new Surprises(new double[0], new double[0], new double[0]);

    static Surprises of(DurationEstimator durations) {
        List<Double> shares = new ArrayList<>(), longer = new ArrayList<>(), shorter = new ArrayList<>();
        for (RecentRuns w : durations.teamWindows()) {
            List<Long> runs = w.values();
            for (int i = MIN_BEFORE; i < runs.size(); i++) {
                long v = runs.get(i), longest = 0, shortest = Long.MAX_VALUE;
                int below = 0, same = 0;
                for (int k = 0; k < i; k++) {
                    long r = runs.get(k);
                    if (r < v) below++;
                    else if (r == v) same++;
                    longest = Math.max(longest, r);
                    shortest = Math.min(shortest, r);
                }
                shares.add((below + 0.5 * same) / i);
                if (below == i) longer.add(v / (double) Math.max(1, longest));
                if (below == 0 && same == 0) shorter.add(v / (double) Math.max(1, shortest));
            }
        }
        if (shares.size() < MIN_SHARES) return NONE;
        return new Surprises(sortedOf(shares), sortedOf(longer), sortedOf(shorter));
    }

    private static double[] sortedOf(List<Double> values) {
        double[] s = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(s);
        return s;
    }

    /** The share of runs that were longer than every run before them. */
    double longerShare() {
        return sorted.length == 0 ? 0 : longerThanAll.length / (double) sorted.length;
    }

    /** The share of runs that were shorter than every run before them. */
    double shorterShare() {
        return sorted.length == 0 ? 0 : shorterThanAll.length / (double) sorted.length;
    }

    /** The v-quantile (0..1) of how far runs longer than all before them went beyond the longest. */
    double beyondLongest(double v) {
        return longerThanAll[Math.min(longerThanAll.length - 1, (int) Math.floor(v * longerThanAll.length))];
    }

    /** The v-quantile (0..1) of how far runs shorter than all before them fell below the shortest. */
    double belowShortest(double v) {
        return shorterThanAll[Math.min(shorterThanAll.length - 1, (int) Math.floor(v * shorterThanAll.length))];
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
