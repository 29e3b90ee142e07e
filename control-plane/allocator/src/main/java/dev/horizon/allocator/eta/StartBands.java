package dev.horizon.allocator.eta;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.forecast.RecentRuns;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

/**
 * Start-time bands: when each waiting job of a moment should start, as the median and the 90th percentile of its start
 * over sampled futures of the moment ({@link Projection}). Each future draws every job's duration from the estimator's
 * runs ({@link DurationDraws}) and the work expected to arrive from the recent past ({@link ExpectedArrivals}); inference
 * demand repeats one of the past week's days (drawn), shifted by up to {@link #DEMAND_SHIFT_MINUTES} either way; every
 * decision in it is the policy's own. It costs some hundreds of plans, so it runs beside the planning loop, never inside
 * it.
 */
public final class StartBands {
    /** Futures per computation: enough for a 90th percentile, few enough to stay cheap. */
    public static final int SAMPLES = 16;

    /**
     * A waiting job's band: its start in each sampled future, earliest first (Long.MAX_VALUE: not by the end of that
     * future), the end of the moment's horizon (epoch seconds): a start after it was played on past the plan's horizon,
     * and stillWaiting: the policy's last wait reason for it in most of the futures it had not started by their end (null:
     * it started in every one, or the policy gave none), so a job without a band is told why in the policy's own words;
     * unfollowed: in how many of the futures it had not started by their end were they not played on for it, because it
     * had not started in more than half the futures before ({@link #settled}): its start there is unknown, counted as none.
     */
    public record Band(long[] starts, long horizonEnd, String stillWaiting, int unfollowed) {
        /** By when it starts with odds 1 in 2 (epoch seconds; null: not within the horizon). */
        public Long p50At() {
            return at(0.5);
        }

        /** By when it starts with odds 9 in 10. */
        public Long p90At() {
            return at(0.9);
        }

        /** The q-quantile of its start by nearest rank; null when it is beyond the horizon. */
        public Long at(double q) {
            Long v = projected(q);
            return v == null || v > horizonEnd ? null : v;
        }

        /** The q-quantile of its start by nearest rank, past the horizon too; null when it is later than the futures reached. */
        public Long projected(double q) {
            long v = starts[Math.max(0, (int) Math.ceil(q * starts.length) - 1)];
            return v == Long.MAX_VALUE ? null : v;
        }

        /**
         * The band of the futures in which the job had not started by t: what the band says once t has passed without a
         * start. Null when fewer than {@link #MIN_LEFT} futures are left, too few to say it.
         */
        public Band after(long t) {
            int first = 0;
            while (first < starts.length && starts[first] <= t) first++;
            return starts.length - first < MIN_LEFT ? null : new Band(Arrays.copyOfRange(starts, first, starts.length), horizonEnd, stillWaiting, unfollowed);
        }

        /** In how many of its futures the job had not started by their end. */
        public int notStarted() {
            int n = 0;
            for (long v : starts) if (v == Long.MAX_VALUE) n++;
            return n;
        }
    }

    /** The fewest futures a band is read from (a quarter of {@link #SAMPLES}). */
    public static final int MIN_LEFT = 4;

    /**
     * The share of a job's normal score common to its team's jobs of its class: work submitted together runs long or
     * short together, so its futures must move together too, or the bands come out too sure.
     */
    static final double SHARED_WITH_TEAM_CLASS = 0.6;
    /** How far from yesterday's time of day a future's inference bursts may come: the daily rhythm is not to the minute. */
    static final int DEMAND_SHIFT_MINUTES = 30;

    private StartBands() {
    }

    /** Bands for the tracked jobs, their futures played out to the end of the moment's horizon. */
    public static Map<String, Band> of(ClusterMoment m, Decision decided, SchedulingPolicy policy, ExpectedArrivals expected,
                                       Set<String> tracked, int samples, long seed) {
        return of(m, decided, policy, expected, tracked, samples, seed, 0);
    }

    /**
     * Bands for the tracked jobs (waiting ones of the moment), by id. decided: the policy's decision on this very moment
     * (every future starts from it); seed makes the draws repeatable; beyondSteps: how many steps past the moment's
     * horizon a future plays on for the jobs that have not started by then (0: none). A future is played on only while a
     * job it has not started is not yet {@link #settled}: once a job has not started in more than half the futures, its
     * P50 and every higher level are "none" whatever the rest say, so it no longer keeps them going (the jobs the policy
     * holds back for good, fair-share held or fitting nowhere, would otherwise play every future to its end).
     */
    public static Map<String, Band> of(ClusterMoment m, Decision decided, SchedulingPolicy policy, ExpectedArrivals expected,
                                       Set<String> tracked, int samples, long seed, int beyondSteps) {
        if (beyondSteps < 0) throw new IllegalArgumentException("beyondSteps must be >= 0 (got " + beyondSteps + ")");
        Map<String, long[]> starts = new LinkedHashMap<>();
        tracked.forEach(id -> starts.put(id, new long[samples]));
        Map<String, Map<String, Integer>> stillWaiting = new HashMap<>();
        Map<String, Integer> notStarted = new HashMap<>(), unfollowed = new HashMap<>();
        Random rng = new Random(seed);
        Surprises surprises = Surprises.of(m.durations());
        long horizonEnd = m.now() + m.horizonSteps() * m.stepSeconds();
        long until = horizonEnd + beyondSteps * m.stepSeconds();
        // the running jobs, once: every window, the expected arrivals' of every future too, looks among them for its sweep
        List<ActiveJob> running = m.jobs().stream().filter(ActiveJob::isRunning).toList();
        Map<String, Optional<RecentRuns>> windows = new HashMap<>();
        for (ActiveJob j : m.jobs()) windows.put(j.id(), DurationDraws.window(j, m.durations(), running, m.now()));
        for (int k = 0; k < samples; k++) {
            List<ActiveJob> arrivals = expected.draw(m.now(), until, rng, "expected-" + k + "-");
            Map<String, Long> totals = new HashMap<>();
            Map<String, Double> shocks = new HashMap<>();
            for (ActiveJob j : m.jobs()) {
                totals.put(j.id(), DurationDraws.total(j, windows.get(j.id()), m.durations(), surprises, doneSeconds(j, m.now()), score(j, shocks, rng)));
            }
            for (ActiveJob j : arrivals) {
                totals.put(j.id(), DurationDraws.total(j, DurationDraws.window(j, m.durations(), running, m.now()), m.durations(), surprises, 0, score(j, shocks, rng)));
            }
            int shift = rng.nextInt(2 * DEMAND_SHIFT_MINUTES + 1) - DEMAND_SHIFT_MINUTES;
            int day = rng.nextInt(Integer.MAX_VALUE);
            Projection future = new Projection(m, policy, totals, arrivals, day, shift);
            Set<String> followed = new HashSet<>();
            for (String id : tracked) if (!settled(notStarted.getOrDefault(id, 0), samples)) followed.add(id);
            Map<String, Long> first = future.firstStarts(decided, tracked, followed, until);
            boolean cut = first.keySet().containsAll(followed);
            for (String id : tracked) {
                starts.get(id)[k] = first.getOrDefault(id, Long.MAX_VALUE);
                if (first.containsKey(id)) continue;
                notStarted.merge(id, 1, Integer::sum);
                if (cut) unfollowed.merge(id, 1, Integer::sum);
            }
            future.waitReasons().forEach((id, why) -> stillWaiting.computeIfAbsent(id, x -> new HashMap<>()).merge(why, 1, Integer::sum));
        }
        Map<String, Band> out = new LinkedHashMap<>();
        starts.forEach((id, s) -> {
            long[] sorted = s.clone();
            Arrays.sort(sorted);
            out.put(id, new Band(sorted, horizonEnd, mostSaid(stillWaiting.get(id)), unfollowed.getOrDefault(id, 0)));
        });
        return out;
    }

    /**
     * Whether a job not started in notStarted of the futures so far has no P50 whatever the rest of the samples say: the
     * nearest-rank median is the ceil(n/2)-th earliest start, so more than n - ceil(n/2) starts of none leave it none (and
     * every level above it, and the bands read after a time passed, which keep every future it had not started in).
     */
    static boolean settled(int notStarted, int samples) {
        return notStarted > samples - (samples + 1) / 2;
    }

    /** The reason given in most futures (among equal counts the alphabetically first, so it repeats); null when none was. */
    private static String mostSaid(Map<String, Integer> reasons) {
        if (reasons == null) return null;
        String most = null;
        for (Map.Entry<String, Integer> e : new java.util.TreeMap<>(reasons).entrySet()) {
            if (most == null || e.getValue() > reasons.get(most)) most = e.getKey();
        }
        return most;
    }

    /** A job's normal score in one future: {@link #SHARED_WITH_TEAM_CLASS} of it common to its team and class, the rest its own. */
    private static double score(ActiveJob j, Map<String, Double> shocks, Random rng) {
        double common = shocks.computeIfAbsent(j.team() + "/" + j.jobClass(), k -> rng.nextGaussian());
        return Math.sqrt(SHARED_WITH_TEAM_CLASS) * common + Math.sqrt(1 - SHARED_WITH_TEAM_CLASS) * rng.nextGaussian();
    }

    /** Work the job has done, in seconds at its full width: what it kept from earlier runs and what this run did so far. */
    static double doneSeconds(ActiveJob j, long now) {
        double gpuSeconds = j.history().doneGpuSeconds();
        if (j.isRunning()) gpuSeconds += (double) (now - j.running().startSeconds()) * j.running().placement().gpuCount();
        return gpuSeconds / j.gpus();
    }
}
