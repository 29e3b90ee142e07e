package dev.horizon.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobJson;
import java.util.List;

/** A ratio over repeats: its mean and the 95% interval of that mean (Student's t, n - 1 degrees of freedom). */
record Interval(double mean, double low, double high, int n) {
    /** t's 97.5% quantile for 1 to 30 degrees of freedom; beyond, the normal's 1.96 is close enough. */
    private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

    static Interval of(List<Double> values) {
        int n = values.size();
        double mean = values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        if (n < 2) return new Interval(mean, mean, mean, n);
        double var = values.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum() / (n - 1);
        double half = (n - 1 <= T975.length ? T975[n - 2] : 1.96) * Math.sqrt(var / n);
        return new Interval(mean, mean - half, mean + half, n);
    }

    ObjectNode json() {
        return JobJson.mapper().createObjectNode().put("mean", mean).put("low", low).put("high", high).put("n", n);
    }
}
