package dev.horizon.forecast;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.List;

/**
 * The durations of the most recent completed runs of one (team, class) or one class, oldest first, at most
 * {@link #KEEP}: the window the duration estimate and its quantiles come from. It is the whole statistic, so the
 * service stores it as it is and restores it, instead of re-reading finished jobs.
 */
public final class RecentRuns {
    /** How many runs the window keeps: enough for stable quantiles, few enough to follow a team whose jobs change. */
    public static final int KEEP = 200;
    private final Deque<Long> seconds = new ArrayDeque<>();
    /**
     * The window sorted, made on the first quantile after a change: a plan asks once per waiting job. Volatile, and set
     * only once whole: the futures of start-time bands, played at once, read one estimator from several threads.
     */
    private volatile long[] sorted;
    /** The last {@link #meanUpTo} asked: its cap and its mean, set whole; null after a change. */
    private volatile double[] meanUpTo;

    public RecentRuns() {
    }

    /** A window holding these durations, oldest first; only the newest KEEP are kept. */
    public static RecentRuns of(Collection<Long> oldestFirst) {
        RecentRuns runs = new RecentRuns();
        oldestFirst.forEach(runs::observe);
        return runs;
    }

    public void observe(long durationSeconds) {
        seconds.addLast(durationSeconds);
        if (seconds.size() > KEEP) seconds.removeFirst();
        sorted = null;
        meanUpTo = null;
    }

    public int size() {
        return seconds.size();
    }

    /** The durations in the window, oldest first. */
    public List<Long> values() {
        return List.copyOf(seconds);
    }

    /** The share of the window's runs that took at most {@code duration} seconds (0 for an empty window). */
    public double shareAtMost(long duration) {
        if (seconds.isEmpty()) return 0;
        long[] s = sorted();
        int lo = 0, hi = s.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (s[mid] <= duration) lo = mid + 1;
            else hi = mid;
        }
        return lo / (double) s.length;
    }

    /**
     * The q-quantile (0 to 1) by nearest rank: the duration that a share q of the window's runs did not exceed,
     * the upper one of two for an even count at the median.
     */
    public long quantile(double q) {
        if (seconds.isEmpty()) throw new IllegalStateException("no runs observed");
        if (!(q >= 0 && q <= 1)) throw new IllegalArgumentException("a quantile is between 0 and 1 (got " + q + ")");
        long[] s = sorted();
        return s[Math.min(s.length - 1, (int) Math.floor(q * s.length))];
    }

    /**
     * The mean of the window's runs, each counted up to cap seconds (0 for an empty window): what a run of this kind is
     * expected to do within cap. Kept for the last cap asked, as the sorted window is (every waiting job asks it at every
     * decision, with the same cap).
     */
    public double meanUpTo(long cap) {
        double[] kept = meanUpTo;
        if (kept != null && kept[0] == cap) return kept[1];
        double sum = 0;
        for (long d : seconds) sum += Math.min(d, cap);
        double mean = seconds.isEmpty() ? 0 : sum / seconds.size();
        meanUpTo = new double[] {cap, mean};
        return mean;
    }

    private long[] sorted() {
        long[] s = sorted;
        if (s == null) {
            s = seconds.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(s);
            sorted = s;
        }
        return s;
    }
}
