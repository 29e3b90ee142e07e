package dev.horizon.allocator.eta;

import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.forecast.RecentRuns;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Draws a job's whole duration (at full width) from what the duration estimator has seen, given the part of it the job
 * has already done: a duration the job has already outlived is never drawn. The draw comes from the window of recent
 * runs of its team and class (else its class) that the estimate itself comes from; a user's own estimate is taken as the
 * median, with the spread of those runs relative to their median; without any runs, a lognormal spread around the
 * estimate. A job that outlived every run it is compared with is expected to run on as the estimator expects (half its
 * age at the median), with a heavy tail.
 *
 * <p>Jobs of one burst run like one another (a sweep's jobs take minutes each where the team's history says days), so
 * the window a job's draw comes from is weighed towards how its burst's jobs have run so far, ended or still running
 * ({@link #window}).
 */
public final class DurationDraws {
    /**
     * A burst: jobs of one team and class asking for the same GPUs that arrived within this many seconds of each other
     * (measured from the job drawn for, not chained).
     */
    public static final long BURST_GAP_SECONDS = 600;
    /**
     * How many jobs the team's runs weigh as against a burst's own, in the burst's Kaplan-Meier estimate: with k siblings
     * ended and none running they make a share k / (k + this) of the window, so one short sibling moves the draw, a dozen all
     * but decide it.
     */
    static final double BURST_PRIOR_JOBS = 2;
    /** Lognormal spread of a duration with no run to compare with: the class default says little. */
    static final double SPREAD_WITHOUT_RUNS = 1.0;
    /** Lognormal spread of a user's own estimate with no run to compare with: users know their jobs roughly. */
    static final double SPREAD_OF_USER_ESTIMATE = 0.25;

    private DurationDraws() {
    }

    /**
     * A whole duration for j, longer than doneSeconds (the full-width seconds of work it has done, this run included),
     * at the standard normal score z: z's quantile of what the job may still run (jobs drawn with related scores run
     * long or short together). runs: the job's {@link #window}.
     */
    static long total(ActiveJob j, Optional<RecentRuns> runs, DurationEstimator durations, Surprises surprises, double doneSeconds, double z) {
        long median = durations.estimate(j.team(), j.jobClass(), j.userEstimateSeconds());
        double u = Math.min(1 - 1e-9, Math.max(1e-9, Normal.cdf(z)));
        Long drawn = runs.isPresent() ? fromRuns(runs.get(), surprises, scale(j, runs.get(), median), doneSeconds, u)
                : lognormal(median, j.userEstimateSeconds() != null ? SPREAD_OF_USER_ESTIMATE : SPREAD_WITHOUT_RUNS, doneSeconds, u);
        long total = drawn != null ? drawn : (long) Math.ceil(doneSeconds + outlived(doneSeconds, u));
        return Math.max(total, (long) Math.ceil(doneSeconds) + ContextBuilder.MIN_ESTIMATE_SECONDS);
    }

    /**
     * The runs j's duration is drawn from at now: the estimator's window of its team and class (else its class), updated
     * by how its burst ({@link #BURST_GAP_SECONDS}) has run so far, a Kaplan-Meier estimate over the window (weighing
     * {@link #BURST_PRIOR_JOBS} jobs) and its siblings: each that ended by now a run of its length, each still running (among
     * running, the moment's running jobs) a run at least as long as it has done. Empty when there is neither window nor a
     * sibling that ended. A sweep's siblings still running say as much as its ended ones: the ones that end first are its
     * short ones (on Philly seed 22 / day 28, 2.5 h into a sweep of 160 jobs, the 17 that had ended ran 1.6 min at the median and
     * the ones that started later 17 min), and siblings that have run for longer than the team's runs ever took say the sweep runs
     * long before any of them ends (seed 29 / day 13: the team's 44 runs took 900 s, its next sweep's 1.7 h at the median).
     */
    static Optional<RecentRuns> window(ActiveJob j, DurationEstimator durations, RunningSiblings running, long now) {
        Optional<RecentRuns> usual = durations.runs(j.team(), j.jobClass());
        List<Long> ended = durations.finishedLike(j.team(), j.jobClass(), j.gpus(), j.arrivalSeconds(), BURST_GAP_SECONDS, now);
        List<Double> runningFor = new ArrayList<>();
        for (ActiveJob o : running.like(j)) {
            if (!o.id().equals(j.id()) && Math.abs(o.arrivalSeconds() - j.arrivalSeconds()) <= BURST_GAP_SECONDS) runningFor.add(StartBands.doneSeconds(o, now));
        }
        if (ended.isEmpty() && (usual.isEmpty() || runningFor.isEmpty())) return usual;
        List<Survival.Run> runs = new ArrayList<>();
        usual.ifPresent(u -> {
            for (int i = 0; i < RecentRuns.KEEP; i++) runs.add(new Survival.Run(u.quantile((i + 0.5) / RecentRuns.KEEP), BURST_PRIOR_JOBS / RecentRuns.KEEP, true));
        });
        for (long e : ended) runs.add(new Survival.Run(e, 1, true));
        for (double r : runningFor) runs.add(new Survival.Run(r, 1, false));
        return Optional.of(RecentRuns.of(Survival.quantiles(runs, RecentRuns.KEEP, DurationDraws::outlived)));
    }

    /**
     * Running jobs by team, class and GPUs, each group in the order given: where a job's burst siblings can be. Looking
     * for them among all running jobs, for each of 20,000 jobs and each expected arrival of each future, took some 20 s
     * of the bands at 10,240 GPUs, all of it before the futures could be played.
     */
    static final class RunningSiblings {
        private record Shape(String team, JobClass jobClass, int gpus) {
        }

        private final Map<Shape, List<ActiveJob>> byShape = new HashMap<>();

        RunningSiblings(List<ActiveJob> running) {
            for (ActiveJob o : running) byShape.computeIfAbsent(new Shape(o.team(), o.jobClass(), o.gpus()), k -> new ArrayList<>()).add(o);
        }

        /** The running jobs of j's team and class that ask for as many GPUs, in the order given. */
        List<ActiveJob> like(ActiveJob j) {
            return byShape.getOrDefault(new Shape(j.team(), j.jobClass(), j.gpus()), List.of());
        }
    }

    /** The runs stand for the job's own duration scaled by this: 1 for the estimator's own estimate, else user / median. */
    private static double scale(ActiveJob j, RecentRuns runs, long median) {
        return j.userEstimateSeconds() == null ? 1 : median / (double) Math.max(1, runs.quantile(0.5));
    }

    /**
     * The u-quantile of the runs above what the job has done, as surprising as runs were ({@link Surprises}); null when
     * it outlived them all.
     */
    private static Long fromRuns(RecentRuns runs, Surprises surprises, double scale, double doneSeconds, double u) {
        double window = runs.shareAtMost((long) Math.floor(doneSeconds / scale));
        if (window >= 1) return null;
        double below = surprises.cdf(window);
        if (below >= 1) return null;
        return Math.round(scale * runs.quantile(surprises.quantile(below + (1 - below) * u)));
    }

    /** The u-quantile of a lognormal around the median, above what the job has done. */
    private static Long lognormal(long median, double sigma, double doneSeconds, double u) {
        double below = doneSeconds <= 0 ? 0 : Normal.cdf(Math.log(doneSeconds / median) / sigma);
        double p = below + (1 - below) * u;
        if (p >= 1 - 1e-9) return null;
        return Math.round(median * Math.exp(sigma * Normal.inverse(p)));
    }

    /** What a job that outlived its runs still runs: log-logistic with the estimator's half its age at the median. */
    static double outlived(double doneSeconds, double u) {
        double v = 0.01 + 0.98 * u;
        return doneSeconds / 2 * v / (1 - v);
    }
}
