package dev.horizon.allocator.plan;

/**
 * The minimum of a row's entries over any window, for rows that change a stretch at a time (the cluster's capacity per
 * step, each node's free GPUs per step): a sparse table (level k: minima of windows 2^k long), built when first asked
 * and then patched over the stretch that changed, answering every window length in two reads. The planner asks these
 * minima over a job's run at each candidate start; a sliding pass per job, redone for every job length and for every
 * node a job was planned on, was most of what planning cost.
 *
 * <p>A level keeps rows in blocks of {@link #BLOCK}: within a block, every row's minimum for one window next to each
 * other, then the block's next window (entry {@code ((row / BLOCK) * starts + start) * BLOCK + row % BLOCK}). The planner
 * asks all nodes' minima over the same window, which reads a block's rows together, and patches one node's windows after
 * each job it plans, which reads and writes one block's consecutive windows: with every row side by side instead, each
 * window of a patch was a cache line of its own on a cluster of a thousand nodes.
 */
final class RangeMinima {
    /** Rows per block: a 64-byte cache line of ints. */
    private static final int BLOCK = 16;
    private final int[][] rows;
    private final int h;
    /** How many windows of level k there are (h - 2^k + 1). */
    private final int[] starts;
    /** levels[k][at(k, i, r)]: min of rows[r][i .. i + 2^k - 1]; null until first asked. */
    private int[][] levels;

    /** Minima over rows[r][0 .. h-1]; the rows are read, never kept, so whoever changes one calls {@link #changed}. */
    RangeMinima(int[][] rows, int h) {
        this.rows = rows;
        this.h = h;
        this.starts = new int[32 - Integer.numberOfLeadingZeros(Math.max(1, h))];
        for (int k = 0; k < starts.length; k++) starts[k] = h - (1 << k) + 1;
    }

    /** min of rows[r][from .. min(h, from + len) - 1]; len >= 1 and from < h. */
    int min(int r, int from, int len) {
        int to = Math.min(h, from + len);
        int k = 31 - Integer.numberOfLeadingZeros(to - from);
        int[] level = levels()[k];
        return Math.min(level[at(k, from, r)], level[at(k, to - (1 << k), r)]);
    }

    /** out[r] = min(r, from, len) for every row. */
    void minima(int from, int len, int[] out) {
        int to = Math.min(h, from + len);
        int k = 31 - Integer.numberOfLeadingZeros(to - from);
        int[] level = levels()[k];
        for (int first = 0; first < rows.length; first += BLOCK) {
            int a = at(k, from, first), b = at(k, to - (1 << k), first);
            for (int j = 0, last = Math.min(BLOCK, rows.length - first); j < last; j++) out[first + j] = Math.min(level[a + j], level[b + j]);
        }
    }

    /**
     * The first row among the allowed ones (null: every row) whose minimum over [from, min(h, from + len)) is the least
     * that is at least atLeast; -1 when none is. A row whose minimum is atLeast exactly ends the walk: no later row beats it.
     */
    int leastAtLeast(int from, int len, boolean[] allowed, int atLeast) {
        int to = Math.min(h, from + len);
        int k = 31 - Integer.numberOfLeadingZeros(to - from);
        int[] level = levels()[k];
        int best = -1, bestMin = Integer.MAX_VALUE;
        for (int first = 0; first < rows.length; first += BLOCK) {
            int a = at(k, from, first), b = at(k, to - (1 << k), first);
            for (int j = 0, last = Math.min(BLOCK, rows.length - first); j < last; j++) {
                if (allowed != null && !allowed[first + j]) continue;
                int m = Math.min(level[a + j], level[b + j]);
                if (m < atLeast || m >= bestMin) continue;
                best = first + j;
                bestMin = m;
                if (m == atLeast) return best;
            }
        }
        return best;
    }

    /** Entries [from, to) of row r changed: the windows over them are worked out again (none before the first question). */
    void changed(int r, int from, int to) {
        if (levels != null) patch(r, from, to);
    }

    /** Where level k keeps row r's window from start i. */
    private int at(int k, int i, int r) {
        return ((r / BLOCK) * starts[k] + i) * BLOCK + r % BLOCK;
    }

    private int[][] levels() {
        if (levels != null) return levels;
        int blocks = (rows.length + BLOCK - 1) / BLOCK;
        levels = new int[starts.length][];
        for (int k = 0; k < levels.length; k++) levels[k] = new int[blocks * starts[k] * BLOCK];
        for (int r = 0; r < rows.length; r++) patch(r, 0, h);
        return levels;
    }

    private void patch(int r, int from, int to) {
        int[] row = rows[r], base = levels[0];
        for (int i = from, at = at(0, from, r); i < to; i++, at += BLOCK) base[at] = row[i];
        for (int k = 1; k < levels.length; k++) {
            int[] below = levels[k - 1], level = levels[k];
            int first = Math.max(0, from - (1 << k) + 1), last = Math.min(starts[k], to);
            // the window from i at level k is the two halves from i and i + 2^(k-1) at level k - 1
            int half = (1 << (k - 1)) * BLOCK;
            for (int i = first, at = at(k, first, r), atBelow = at(k - 1, first, r); i < last; i++, at += BLOCK, atBelow += BLOCK) {
                level[at] = Math.min(below[atBelow], below[atBelow + half]);
            }
        }
    }
}
