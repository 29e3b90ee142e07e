package dev.horizon.allocator.eta;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Keeps the bands honest with what happened to earlier ones. The sampled futures draw each job's duration on its own,
 * but real jobs come in bursts whose durations go together, and the runs an estimator has seen end are the shorter
 * ones; so raw bands are too sure. Per quantile level, the wait each band said is scaled by the factor that made the
 * earlier bands of that level come true as often as they should (split-conformal calibration on the ratio of the wait
 * that happened to the wait the band said, Kaplan-Meier over jobs still waiting). Until enough bands have an outcome the
 * factor is 1.
 *
 * @param levels  the quantile levels, ascending
 * @param factors the factor per level
 * @param outcomes how many outcomes the factors rest on
 */
public record Recalibration(double[] levels, double[] factors, int outcomes) {
    /** Bands with an outcome before the factors move off 1: fewer say little about a 90th percentile. */
    public static final int MIN_OUTCOMES = 40;
    /** Seconds added to both waits of a ratio, so a band that said "now" still has a scale. */
    static final double SLACK_SECONDS = 60;

    /**
     * What became of one earlier band: when it was computed, the wait it said at each level (seconds from then; a
     * negative value: not within the horizon), and the wait seen since (until the job started, else until now).
     */
    public record Outcome(double[] saidWaits, double seenWait, boolean started) {
    }

    /** The factors that would have made these outcomes' bands come true at each level. */
    public static Recalibration of(double[] levels, List<Outcome> outcomes) {
        double[] factors = new double[levels.length];
        long started = outcomes.stream().filter(Outcome::started).count();
        for (int i = 0; i < levels.length; i++) factors[i] = started < MIN_OUTCOMES ? 1 : factor(levels[i], i, outcomes);
        return new Recalibration(levels.clone(), factors, outcomes.size());
    }

    /** The level's quantile of the ratio seen / said, Kaplan-Meier: a job still waiting only says its ratio is larger. */
    private static double factor(double level, int i, List<Outcome> outcomes) {
        record Ratio(double value, boolean event) {
        }
        List<Ratio> ratios = new ArrayList<>();
        for (Outcome o : outcomes) {
            if (o.saidWaits()[i] < 0) continue;
            ratios.add(new Ratio((o.seenWait() + SLACK_SECONDS) / (o.saidWaits()[i] + SLACK_SECONDS), o.started()));
        }
        ratios.sort(Comparator.comparingDouble(Ratio::value).thenComparing(r -> !r.event()));
        double survival = 1;
        int atRisk = ratios.size();
        for (Ratio r : ratios) {
            if (r.event()) {
                survival *= 1 - 1.0 / atRisk;
                if (1 - survival >= level) return r.value();
            }
            atRisk--;
        }
        // the level lies among jobs still waiting: the largest ratio seen is the least it takes
        return ratios.isEmpty() ? 1 : ratios.get(ratios.size() - 1).value();
    }

    /** The start at level index i for a band computed at {@code at} whose raw start there is rawAt (null stays null). */
    public Long at(int i, long at, Long rawAt) {
        if (rawAt == null) return null;
        double wait = factors[i] * (rawAt - at + SLACK_SECONDS) - SLACK_SECONDS;
        return at + Math.max(0, Math.round(wait));
    }
}
