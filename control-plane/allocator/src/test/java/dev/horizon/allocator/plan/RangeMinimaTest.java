package dev.horizon.allocator.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class RangeMinimaTest {
    /**
     * Stretches lowered (or raised) by one amount, as a planned job lowers its nodes and the capacity, told through
     * {@link RangeMinima#lowered}, some of them before the table is first asked: every window's minimum, every row's at once
     * and the least row at least a value (among every row, or among those a job accepts) answer as the rows do. Every other
     * table has up to 192 rows, most of them nearly full, as a large cluster's nodes are.
     */
    @Test
    void aTableLoweredByAStretchAnswersAsTheRowsDo() {
        Random rng = new Random(11);
        for (int trial = 0; trial < 60; trial++) {
            boolean large = trial % 2 == 1;
            int n = large ? 1 + rng.nextInt(192) : 1 + rng.nextInt(6), h = 1 + rng.nextInt(large ? 40 : 130);
            int[][] rows = large ? nearlyFullRows(rng, n, h) : randomRows(rng, n, h);
            RangeMinima minima = new RangeMinima(rows, h);
            int askedAfter = rng.nextInt(3);
            for (int change = 0; change < 60; change++) {
                if (change == askedAfter) assertAnswersAsTheRows(minima, rows, h, rng);
                int r = rng.nextInt(n), from = rng.nextInt(h), to = from + 1 + rng.nextInt(h - from);
                int by = rng.nextInt(10) == 0 ? -(1 + rng.nextInt(3)) : rng.nextInt(4);
                for (int t = from; t < to; t++) rows[r][t] -= by;
                minima.lowered(r, from, to, by);
                if (change >= askedAfter) assertAnswersAsTheRows(minima, rows, h, rng);
            }
        }
    }

    /** n rows of h entries from -1 to 7. */
    private static int[][] randomRows(Random rng, int n, int h) {
        int[][] rows = new int[n][h];
        for (int[] row : rows) for (int t = 0; t < h; t++) row[t] = rng.nextInt(9) - 1;
        return rows;
    }

    /** n rows of h entries, one row in twenty from -1 to 7, the others from -1 to 1. */
    private static int[][] nearlyFullRows(Random rng, int n, int h) {
        int[][] rows = new int[n][h];
        for (int[] row : rows) {
            int most = rng.nextInt(20) == 0 ? 9 : 3;
            for (int t = 0; t < h; t++) row[t] = rng.nextInt(most) - 1;
        }
        return rows;
    }

    private static void assertAnswersAsTheRows(RangeMinima minima, int[][] rows, int h, Random rng) {
        int n = rows.length;
        for (int q = 0; q < 20; q++) {
            int from = rng.nextInt(h), len = 1 + rng.nextInt(h);
            int[] expected = new int[n];
            for (int r = 0; r < n; r++) {
                int least = Integer.MAX_VALUE;
                for (int t = from; t < Math.min(h, from + len); t++) least = Math.min(least, rows[r][t]);
                expected[r] = least;
                assertEquals(least, minima.min(r, from, len), "row " + r + " over [" + from + ", " + (from + len) + ")");
            }
            int[] all = new int[n];
            minima.minima(from, len, all);
            assertArrayEquals(expected, all);
            int atLeast = rng.nextInt(6);
            boolean[] allowed = null;
            if (rng.nextBoolean()) {
                allowed = new boolean[n];
                for (int r = 0; r < n; r++) allowed[r] = rng.nextInt(3) > 0;
            }
            int best = -1;
            for (int r = 0; r < n; r++) {
                if (allowed != null && !allowed[r]) continue;
                if (expected[r] >= atLeast && (best < 0 || expected[r] < expected[best])) best = r;
            }
            assertEquals(best, minima.leastAtLeast(from, len, allowed, atLeast), "least row at least " + atLeast + " over [" + from + ", " + (from + len) + ")");
        }
    }
}
