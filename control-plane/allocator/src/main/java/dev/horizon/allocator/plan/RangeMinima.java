package dev.horizon.allocator.plan;

/**
 * The minimum of a row's entries over any window, for rows that change a stretch at a time (the cluster's capacity per
 * step, each node's free GPUs per step): a sparse table per row (level k: minima of windows 2^k long), built when first
 * asked and then patched over the stretch that changed, answering every window length in two reads. The planner asks
 * these minima over a job's run at each candidate start; a sliding pass per job, redone for every job length and for
 * every node a job was planned on, was most of what planning cost.
 */
final class RangeMinima {
    private final int[][] rows;
    private final int h;
    private final int[][][] tables;

    /** Minima over rows[r][0 .. h-1]; the rows are read, never copied, so whoever changes one calls {@link #changed}. */
    RangeMinima(int[][] rows, int h) {
        this.rows = rows;
        this.h = h;
        this.tables = new int[rows.length][][];
    }

    int rows() {
        return rows.length;
    }

    /** min of rows[r][from .. min(h, from + len) - 1]; len >= 1 and from < h. */
    int min(int r, int from, int len) {
        int to = Math.min(h, from + len);
        int k = 31 - Integer.numberOfLeadingZeros(to - from);
        int[][] t = tables[r] == null ? build(r) : tables[r];
        return Math.min(t[k][from], t[k][to - (1 << k)]);
    }

    /** Entries [from, to) of row r changed: the windows over them are worked out again (none before the row is first asked). */
    void changed(int r, int from, int to) {
        int[][] t = tables[r];
        if (t == null) return;
        for (int k = 1; k < t.length; k++) {
            int[] below = t[k - 1], level = t[k];
            int half = 1 << (k - 1);
            for (int i = Math.max(0, from - (1 << k) + 1); i < Math.min(level.length, to); i++) level[i] = Math.min(below[i], below[i + half]);
        }
    }

    private int[][] build(int r) {
        int[][] t = new int[32 - Integer.numberOfLeadingZeros(Math.max(1, h))][];
        t[0] = rows[r];
        for (int k = 1; k < t.length; k++) t[k] = new int[h - (1 << k) + 1];
        tables[r] = t;
        changed(r, 0, h);
        return t;
    }
}
