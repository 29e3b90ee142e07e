package dev.horizon.forecast;

import dev.horizon.api.JobClass;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Duration estimates from history per (team, job class): the median of the last completed runs,
 * falling back to the class's median across teams, then to a default per class. A job that has
 * outlived its estimate is expected to run as long again as half its age (heavy-tailed durations).
 * The windows ({@link RecentRuns}) are the whole state: a store keeps them and restores an estimator with
 * {@link #restore}, and their quantiles say how sure the estimate is. Apart from the windows, it remembers the last
 * {@link #KEEP_FINISHED} finished runs with what they were ({@link Finished}), so that sampled futures can draw a job's
 * duration from how its burst's finished jobs ran; a restored estimator starts without them.
 */
public final class DurationEstimator {
    /** Finished runs remembered with their shape: a busy day's sweeps, not the estimate's statistic. */
    public static final int KEEP_FINISHED = 2000;
    private static final int MIN_SAMPLES = 3;
    private final Deque<Finished> finished = new ArrayDeque<>();
    private final Map<TeamClass, RecentRuns> byTeamAndClass = new HashMap<>();
    private final Map<JobClass, RecentRuns> byClass = new HashMap<>();

    public static long classDefaultSeconds(JobClass jobClass) {
        return switch (jobClass) {
            case TRAINING -> 4 * 3600;
            case BATCH_INFERENCE -> 3600;
            case QUANTIZATION -> 1800;
            case DEBUG -> 600;
            case INTERACTIVE, REALTIME_INFERENCE -> 3600;
        };
    }

    public void observe(String team, JobClass jobClass, long durationSeconds) {
        byTeamAndClass.computeIfAbsent(new TeamClass(team, jobClass), k -> new RecentRuns()).observe(durationSeconds);
        byClass.computeIfAbsent(jobClass, k -> new RecentRuns()).observe(durationSeconds);
    }

    /**
     * A finished run and what places it in a burst: its team, class, GPUs and arrival; endSeconds is when it ended, so
     * that only runs ended by a moment speak for that moment.
     */
    public record Finished(String team, JobClass jobClass, int gpus, long arrivalSeconds, long endSeconds, long durationSeconds) {
    }

    /** Observes a finished run into its windows and remembers it with its shape. */
    public void observe(Finished run) {
        observe(run.team(), run.jobClass(), run.durationSeconds());
        remember(run);
    }

    /**
     * Remembers a finished run with its shape without observing it into the windows: for an estimator restored from
     * windows that already hold it (the control plane's store). Feed runs oldest first.
     */
    public void remember(Finished run) {
        finished.addLast(run);
        if (finished.size() > KEEP_FINISHED) finished.removeFirst();
    }

    /**
     * The durations of remembered runs of this team, class and GPU count that arrived within gapSeconds of
     * arrivalSeconds and ended by now, oldest first.
     */
    public List<Long> finishedLike(String team, JobClass jobClass, int gpus, long arrivalSeconds, long gapSeconds, long now) {
        List<Long> out = new ArrayList<>();
        for (Finished f : finished) {
            if (f.endSeconds() <= now && f.gpus() == gpus && f.jobClass() == jobClass
                    && Math.abs(f.arrivalSeconds() - arrivalSeconds) <= gapSeconds && f.team().equals(team)) out.add(f.durationSeconds());
        }
        return out;
    }

    /** Puts back a stored window: a team's (team not null) or the class's across teams (team null). */
    public void restore(String team, JobClass jobClass, RecentRuns runs) {
        if (team == null) byClass.put(jobClass, runs);
        else byTeamAndClass.put(new TeamClass(team, jobClass), runs);
    }

    /** Estimated total duration; a user's own estimate wins when given. */
    public long estimate(String team, JobClass jobClass, Long userEstimateSeconds) {
        if (userEstimateSeconds != null) return userEstimateSeconds;
        return runs(team, jobClass).map(r -> r.quantile(0.5)).orElse(classDefaultSeconds(jobClass));
    }

    /**
     * Expected total duration counted up to cap seconds: the window's mean with each run counted up to cap (the same window
     * and fallbacks as {@link #estimate}); a user's own estimate wins when given. Durations are heavy-tailed, so the mean is
     * far above the median the plan schedules by: for wide-gangs' Philly-like runs (a median of 15 min) about 1.6 h within a day.
     */
    public long expectedUpTo(String team, JobClass jobClass, Long userEstimateSeconds, long cap) {
        if (userEstimateSeconds != null) return Math.min(userEstimateSeconds, cap);
        return runs(team, jobClass).map(r -> Math.round(r.meanUpTo(cap))).orElse(Math.min(cap, classDefaultSeconds(jobClass)));
    }

    /** The window an estimate without the user's own comes from: the team's runs of the class, else the class's, else none. */
    public Optional<RecentRuns> runs(String team, JobClass jobClass) {
        RecentRuns own = byTeamAndClass.get(new TeamClass(team, jobClass));
        if (own != null && own.size() >= MIN_SAMPLES) return Optional.of(own);
        RecentRuns cls = byClass.get(jobClass);
        if (cls != null && cls.size() >= MIN_SAMPLES) return Optional.of(cls);
        return Optional.empty();
    }

    /** Every team's window of one class, each oldest first: how new runs compared with the runs before them. */
    public java.util.Collection<RecentRuns> teamWindows() {
        return java.util.Collections.unmodifiableCollection(byTeamAndClass.values());
    }

    /** Remaining time of a job that has run {@code elapsedSeconds} of an estimated total. */
    public static long remaining(long estimateSeconds, long elapsedSeconds, long minimumSeconds) {
        long left = estimateSeconds > elapsedSeconds ? estimateSeconds - elapsedSeconds : elapsedSeconds / 2;
        return Math.max(minimumSeconds, left);
    }

    /**
     * A team's class of work, the key of its window: a key string built per lookup was rehashed at every one, and a
     * start-time band's futures look up every waiting job at every decision. Hashed by the class's ordinal, not its
     * identity, so the windows are visited in the same order in every run.
     */
    private record TeamClass(String team, JobClass jobClass) {
        @Override
        public int hashCode() {
            return 31 * Objects.hashCode(team) + jobClass.ordinal();
        }
    }
}
