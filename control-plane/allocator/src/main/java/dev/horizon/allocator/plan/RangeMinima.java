package dev.horizon.allocator.plan;

/**
 * The minimum of a row's entries over any window, for rows that change a stretch at a time (the cluster's capacity per
 * step, each node's free GPUs per step): a sparse table (level k: minima of windows 2^k long), built when first asked
 * and then lowered over the stretch a planned job takes, answering every window length in two reads. The planner asks these
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

    /**
     * Minima over rows[r][0 .. h-1]; the rows are the caller's, read as they are when the table is first asked, so whoever
     * lowers a stretch of one afterwards calls {@link #lowered}.
     */
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
        int[] base = levels[0];
        for (int r = 0; r < n; r++) for (int i = 0; i < h; i++) base[i * n + r] = rows[r][i];
        // a window of 2^k steps is the least of its two halves, each a window of the level below
        for (int k = 1; k < levels.length; k++) {
            int[] below = levels[k - 1], level = levels[k];
            int half = (1 << (k - 1)) * n;
            for (int at = 0; at < level.length; at++) level[at] = Math.min(below[at], below[at + half]);
        }
        return levels;
    }
}
