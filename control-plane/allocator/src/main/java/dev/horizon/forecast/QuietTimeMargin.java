package dev.horizon.forecast;

import java.util.Arrays;

/**
 * How many GPUs an inference service should hold for the next minute, from the minutes it has observed only: the
 * busiest of its last {@value #LOOKBACK} minutes plus a margin (added GPUs or a factor) that depends on how long the
 * service has been quiet. A burst is far likelier a minute after the last request than two hours after it (on the GenAI
 * trace a new burst starts in 34% of the minutes right after one and in 0.3% of those four hours into a lull), so one
 * margin for every minute holds GPUs idle through long lulls to catch the bursts that follow short ones.
 *
 * <p>Each state's margin is the cheapest over the observed minutes (a day at most) at a price of a missed minute in
 * GPU-minutes: the GPU-minutes it would have held plus the price for each minute it would have missed. So a GPU is held
 * in a state only where it saved a missed minute for every {@code price} GPU-minutes, and raising the price adds GPUs
 * where they buy the most, step by step. A minute counts as missed when its demand was above what the rule held at its
 * start or, where the rule grew then, at the minute before's: the GPUs it grows by are lent out as fill and serve only
 * after the reclaim grace period, so a rise is met a minute late.
 */
public final class QuietTimeMargin {
    /** Minutes whose busiest one the margin is added to. */
    static final int LOOKBACK = 5;
    /** States by the minutes since demand was last seen: 0 (the last minute was busy), 1, 2-4, 5-14, 15-29, 30-59, 60-119, 120 or more. */
    private static final int[] QUIET_FROM = {0, 1, 2, 5, 15, 30, 60, 120};
    /** Margins tried per state and family: enough to resolve a GPU at the levels the state saw. */
    private static final int CANDIDATES = 32;
    private static final double EPS = 1e-9;
    private final double missedMinutePrice;

    /** {@code missedMinutePrice}: the GPU-minutes one missed minute of demand is worth holding to avoid. */
    public QuietTimeMargin(double missedMinutePrice) {
        if (!(missedMinutePrice > 0)) throw new IllegalArgumentException("the price of a missed minute must be > 0 GPU-minutes: " + missedMinutePrice);
        this.missedMinutePrice = missedMinutePrice;
    }

    /** GPUs to hold after the observed minutes (oldest first); 0 when nothing has been observed. */
    public int gpus(double[] observed) {
        int n = observed.length;
        if (n == 0) return 0;
        if (n <= LOOKBACK) return (int) Math.ceil(busiest(observed, n) - EPS);
        int[] state = new int[n + 1];
        double[] base = new double[n + 1];
        int quiet = 0;
        for (int m = 1; m <= n; m++) {
            quiet = observed[m - 1] > EPS ? 0 : quiet + 1;
            state[m] = stateOf(quiet);
            base[m] = busiest(observed, m);
        }
        StateMinutes[] states = new StateMinutes[QUIET_FROM.length];
        for (int s = 0; s < states.length; s++) states[s] = StateMinutes.of(observed, state, base, s);
        Margin[] margins = cheapest(states, cheapest(states, null));
        Margin now = margins[state[n]];
        for (int s = state[n]; now == null && s > 0; s--) now = margins[s - 1];
        return now == null ? (int) Math.ceil(base[n] - EPS) : now.held(base[n]);
    }

    private static int stateOf(int quietMinutes) {
        int s = 0;
        while (s + 1 < QUIET_FROM.length && quietMinutes >= QUIET_FROM[s + 1]) s++;
        return s;
    }

    /** The busiest of the {@value #LOOKBACK} minutes before minute m. */
    private static double busiest(double[] observed, int m) {
        double b = 0;
        for (int i = Math.max(0, m - LOOKBACK); i < m; i++) b = Math.max(b, observed[i]);
        return b;
    }

    /** Added GPUs ({@code factor} false) or a factor over the busiest recent minute. */
    private record Margin(double value, boolean factor) {
        int held(double base) {
            return (int) Math.ceil((factor ? base * value : base + value) - EPS);
        }
    }

    /**
     * Per state its margin (null where the state was never seen): the cheapest at the price. What the rule held the minute
     * before a state's minute is sized with the state's own margin or, where that minute was in another state, with that
     * state's margin from {@code before} (a first fit; null: the state's own margin throughout). So the minute after a
     * burst's first is missed where the quiet state's margin did not cover it and the rule had to grow.
     */
    private Margin[] cheapest(StateMinutes[] states, Margin[] before) {
        Margin[] out = new Margin[states.length];
        for (int s = 0; s < states.length; s++) if (states[s] != null) out[s] = states[s].cheapest(missedMinutePrice, before);
        return out;
    }

    /**
     * One state's minutes from LOOKBACK on, scored for every candidate margin: the GPU-minutes it would have held and the
     * minutes it would have missed. Minutes that follow one in the same state are scored once; those entered from another
     * state (a burst's first minutes, a lull's) per fit, since what was held before them depends on that state's margin.
     */
    private record StateMinutes(Margin[] margins, double[] held, int[] missed, int[] entered, double[] observed, int[] state, double[] base) {
        static StateMinutes of(double[] observed, int[] state, double[] base, int s) {
            int count = 0, enteredCount = 0;
            double maxAdded = 0, maxFactor = 1;
            for (int m = LOOKBACK; m < observed.length; m++) {
                if (state[m] != s) continue;
                count++;
                if (state[m - 1] != s) enteredCount++;
                double lower = Math.min(base[m - 1], base[m]);
                maxAdded = Math.max(maxAdded, observed[m] - lower);
                if (lower > EPS) maxFactor = Math.max(maxFactor, observed[m] / lower);
            }
            if (count == 0) return null;
            Margin[] margins = new Margin[2 * CANDIDATES + 2];
            for (int i = 0; i <= CANDIDATES; i++) {
                margins[i] = new Margin(maxAdded * i / CANDIDATES, false);
                margins[CANDIDATES + 1 + i] = new Margin(1 + (maxFactor - 1) * i / CANDIDATES, true);
            }
            double[] held = new double[margins.length];
            int[] missed = new int[margins.length];
            int[] entered = new int[enteredCount];
            // quiet minutes are counted; only the demands of those that had any are kept (every margin covers the rest)
            double[] busyQuiet = new double[count];
            int quietCount = 0, busyCount = 0;
            enteredCount = 0;
            for (int m = LOOKBACK; m < observed.length; m++) {
                if (state[m] != s) continue;
                if (state[m - 1] != s) entered[enteredCount++] = m;
                else if (base[m] <= EPS && base[m - 1] <= EPS) {
                    quietCount++;
                    if (observed[m] > EPS) busyQuiet[busyCount++] = observed[m];
                } else score(margins, null, observed, base, m, held, missed);
            }
            addQuietMinutes(quietCount, Arrays.copyOf(busyQuiet, busyCount), margins, held, missed);
            return new StateMinutes(margins, held, missed, entered, observed, state, base);
        }

        Margin cheapest(double price, Margin[] before) {
            double[] allHeld = held.clone();
            int[] allMissed = missed.clone();
            for (int m : entered) score(margins, before == null ? null : before[state[m - 1]], observed, base, m, allHeld, allMissed);
            int best = 0;
            for (int i = 1; i < margins.length; i++) {
                if (allHeld[i] + price * allMissed[i] < allHeld[best] + price * allMissed[best]) best = i;
            }
            return margins[best];
        }
    }

    /** Minute m under each candidate margin, grown from what {@code heldBefore} held the minute before (null: the same margin). */
    private static void score(Margin[] margins, Margin heldBefore, double[] observed, double[] base, int m, double[] held, int[] missed) {
        for (int i = 0; i < margins.length; i++) {
            int h = margins[i].held(base[m]);
            held[i] += h;
            int grownFrom = (heldBefore == null ? margins[i] : heldBefore).held(base[m - 1]);
            if (observed[m] > Math.min(h, grownFrom) + EPS) missed[i]++;
        }
    }

    /**
     * Minutes quiet for the whole lookback and the minute before it (most minutes of a bursty service) all hold a
     * margin's GPUs over nothing: counted at once, not minute by minute. Most of them are quiet themselves and every
     * margin covers those, so only the others' demands (busy) are sorted to count what each margin misses: the start-time bands'
     * futures size inference at every step of every future, and sorted whole, a day of quiet minutes was among the most
     * of what a computation of the demo's bands spent (docs/control-plane.md, "Inference sized at every step").
     */
    private static void addQuietMinutes(int count, double[] busy, Margin[] margins, double[] held, int[] missed) {
        Arrays.sort(busy);
        for (int i = 0; i < margins.length; i++) {
            int h = margins[i].held(0);
            held[i] += (double) h * count;
            missed[i] += busy.length - coveredBy(busy, h);
        }
    }

    /** How many of the sorted demands h GPUs cover. */
    private static int coveredBy(double[] sorted, int h) {
        int low = 0, high = sorted.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (sorted[mid] <= h + EPS) low = mid + 1;
            else high = mid;
        }
        return low;
    }
}
