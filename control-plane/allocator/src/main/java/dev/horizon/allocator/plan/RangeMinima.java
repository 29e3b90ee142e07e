package dev.horizon.allocator.plan;

/**
 * The minimum of a row's entries over any window, for rows that change a stretch at a time (the cluster's capacity per
 * step, each node's free GPUs per step): a sparse table (level k: minima of windows 2^k long), built when first asked
 * and then patched over the stretch that changed, answering every window length in two reads. The planner asks these
 * minima over a job's run at each candidate start; a sliding pass per job, redone for every job length and for every
 * node a job was planned on, was most of what planning cost.
 *
 * <p>A level holds every row's minimum for one window next to each other (entry {@code start * rows + row}): the planner
 * asks all nodes' minima over the same window, and on a cluster of a thousand nodes reading them one after another
 * instead of one table per node is what made the question cheap.
 */
final class RangeMinima {
    private final int[][] rows;
    private final int h;
    /** levels[k][i * rows + r]: min of rows[r][i .. i + 2^k - 1]; null until first asked. */
    private int[][] levels;

    /** Minima over rows[r][0 .. h-1]; the rows are read, never kept, so whoever changes one calls {@link #changed}. */
    RangeMinima(int[][] rows, int h) {
        this.rows = rows;
        this.h = h;
    }

    /** min of rows[r][from .. min(h, from + len) - 1]; len >= 1 and from < h. */
    int min(int r, int from, int len) {
        int to = Math.min(h, from + len);
        int k = 31 - Integer.numberOfLeadingZeros(to - from);
        int[] level = levels()[k];
        int n = rows.length;
        return Math.min(level[from * n + r], level[(to - (1 << k)) * n + r]);
    }

    /** out[r] = min(r, from, len) for every row. */
    void minima(int from, int len, int[] out) {
        int to = Math.min(h, from + len);
        int k = 31 - Integer.numberOfLeadingZeros(to - from);
        int[] level = levels()[k];
        int n = rows.length;
        int a = from * n, b = (to - (1 << k)) * n;
        for (int r = 0; r < n; r++) out[r] = Math.min(level[a + r], level[b + r]);
    }

    /**
     * The first row among the allowed ones (null: every row) whose minimum over [from, min(h, from + len)) is the least
     * that is at least atLeast; -1 when none is. A row whose minimum is atLeast exactly ends the walk: no later row beats it.
     */
    int leastAtLeast(int from, int len, boolean[] allowed, int atLeast) {
        int to = Math.min(h, from + len);
        int k = 31 - Integer.numberOfLeadingZeros(to - from);
        int[] level = levels()[k];
        int n = rows.length;
        int a = from * n, b = (to - (1 << k)) * n;
        int best = -1, bestMin = Integer.MAX_VALUE;
        for (int r = 0; r < n; r++) {
            if (allowed != null && !allowed[r]) continue;
            int m = Math.min(level[a + r], level[b + r]);
            if (m < atLeast || m >= bestMin) continue;
            best = r;
            bestMin = m;
            if (m == atLeast) break;
        }
        return best;
    }

    /** Entries [from, to) of row r changed: the windows over them are worked out again (none before the first question). */
    void changed(int r, int from, int to) {
        if (levels != null) patch(r, from, to);
    }

    /**
     * Entries [from, to) of row r were each lowered by the same amount (raised where it is negative): a window wholly
     * inside them is lowered by it too, read from nothing else; only the windows across either edge are worked out
     * again from the level below. A planned job lowers its nodes and the capacity so over its run.
     */
    void lowered(int r, int from, int to, int by) {
        if (levels == null) return;
        int n = rows.length;
        int[] row = rows[r], base = levels[0];
        for (int i = from; i < to; i++) base[i * n + r] = row[i];
        for (int k = 1; k < levels.length; k++) {
            int[] below = levels[k - 1], level = levels[k];
            int len = 1 << k, half = (len >> 1) * n, starts = level.length / n;
            for (int i = Math.max(0, from - len + 1); i < Math.min(starts, to); i++) {
                int at = i * n + r;
                if (i >= from && i + len <= to) level[at] -= by;
                else level[at] = Math.min(below[at], below[at + half]);
            }
        }
    }

    private int[][] levels() {
        if (levels != null) return levels;
        int n = rows.length;
        levels = new int[32 - Integer.numberOfLeadingZeros(Math.max(1, h))][];
        for (int k = 0; k < levels.length; k++) levels[k] = new int[(h - (1 << k) + 1) * n];
        for (int r = 0; r < n; r++) patch(r, 0, h);
        return levels;
    }

    /**
     * Row r's entries [from, to) changed: each level is worked out again where an entry below it changed, from the
     * lowest level up, and no further up than a level where nothing did. A planned job lowers a node for its run, and
     * most of the longer windows over it had their minimum elsewhere already; a level holds every row's entry for a
     * window side by side, so each entry of one row read is another cache line, and the walk up all levels for the
     * whole run was most of what planning a job cost on a large cluster.
     */
    private void patch(int r, int from, int to) {
        int n = rows.length;
        int[] row = rows[r], base = levels[0];
        // the entries of the level just worked out that changed lie in [lo, hi] (none: hi < lo)
        int lo = Integer.MAX_VALUE, hi = -1;
        for (int i = from; i < to; i++) {
            int at = i * n + r;
            if (base[at] == row[i]) continue;
            base[at] = row[i];
            lo = Math.min(lo, i);
            hi = i;
        }
        for (int k = 1; k < levels.length && hi >= 0; k++) {
            int[] below = levels[k - 1], level = levels[k];
            int halfSteps = 1 << (k - 1), half = halfSteps * n, starts = level.length / n;
            int changedLo = Integer.MAX_VALUE, changedHi = -1;
            // entry i is the least of entries i and i + halfSteps below it
            for (int i = Math.max(0, lo - halfSteps); i < Math.min(starts, hi + 1); i++) {
                int at = i * n + r;
                int m = Math.min(below[at], below[at + half]);
                if (level[at] == m) continue;
                level[at] = m;
                changedLo = Math.min(changedLo, i);
                changedHi = i;
            }
            lo = changedLo;
            hi = changedHi;
        }
    }
}
