package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobJson;
import java.util.List;

/**
 * A ratio over repeats: its mean and the 95% interval of that mean (Student's t, n - 1 degrees of freedom), and its median
 * and range, since a mean one run carries looks like a margin (wide-gangs: one 64-GPU job started made a seed 2.47x).
 */
record Interval(double mean, double low, double high, int n, double median, double lowest, double highest) {
    /** t's 97.5% quantile for 1 to 30 degrees of freedom; beyond, the normal's 1.96 is close enough. */
    private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

    static Interval of(List<Double> values) {
        int n = values.size();
        double mean = values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = n == 0 ? Double.NaN : (sorted[(n - 1) / 2] + sorted[n / 2]) / 2;
        double lowest = n == 0 ? Double.NaN : sorted[0], highest = n == 0 ? Double.NaN : sorted[n - 1];
        if (n < 2) return new Interval(mean, mean, mean, n, median, lowest, highest);
        double var = values.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum() / (n - 1);
        double half = (n - 1 <= T975.length ? T975[n - 2] : 1.96) * Math.sqrt(var / n);
        return new Interval(mean, mean - half, mean + half, n, median, lowest, highest);
    }

    ObjectNode json() {
        return JobJson.mapper().createObjectNode().put("mean", mean).put("low", low).put("high", high).put("n", n).put("median", median).put("lowest", lowest)
                .put("highest", highest);
    }
}
