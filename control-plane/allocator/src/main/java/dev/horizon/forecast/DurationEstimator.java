package dev.horizon.forecast;

import dev.horizon.api.JobClass;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Duration estimates from history per (team, job class): the median of the last completed runs,
 * falling back to the class's median across teams, then to a default per class. A job that has
 * outlived its estimate is expected to run as long again as half its age (heavy-tailed durations).
 */
public final class DurationEstimator {
    private static final int KEEP = 200;
    private static final int MIN_SAMPLES = 3;
    private final Map<String, Deque<Long>> byTeamAndClass = new HashMap<>();
    private final Map<JobClass, Deque<Long>> byClass = new HashMap<>();

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
        push(byTeamAndClass.computeIfAbsent(team + "/" + jobClass, k -> new ArrayDeque<>()), durationSeconds);
        push(byClass.computeIfAbsent(jobClass, k -> new ArrayDeque<>()), durationSeconds);
    }

    /** Estimated total duration; a user's own estimate wins when given. */
    public long estimate(String team, JobClass jobClass, Long userEstimateSeconds) {
        if (userEstimateSeconds != null) return userEstimateSeconds;
        Deque<Long> own = byTeamAndClass.get(team + "/" + jobClass);
        if (own != null && own.size() >= MIN_SAMPLES) return median(own);
        Deque<Long> cls = byClass.get(jobClass);
        if (cls != null && cls.size() >= MIN_SAMPLES) return median(cls);
        return classDefaultSeconds(jobClass);
    }

    /** Remaining time of a job that has run {@code elapsedSeconds} of an estimated total. */
    public static long remaining(long estimateSeconds, long elapsedSeconds, long minimumSeconds) {
        long left = estimateSeconds > elapsedSeconds ? estimateSeconds - elapsedSeconds : elapsedSeconds / 2;
        return Math.max(minimumSeconds, left);
    }

    private static void push(Deque<Long> q, long v) {
        q.addLast(v);
        if (q.size() > KEEP) q.removeFirst();
    }

    private static long median(Deque<Long> q) {
        long[] v = q.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
