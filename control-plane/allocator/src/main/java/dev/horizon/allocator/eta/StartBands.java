package dev.horizon.allocator.eta;

import dev.horizon.allocator.SchedulingPolicy;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.forecast.RecentRuns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Start-time bands: when each waiting job of a moment should start, as the median and the 90th percentile of its start
 * over sampled futures of the moment ({@link Projection}). Each future draws every job's duration from the estimator's
 * runs ({@link DurationDraws}) and the work expected to arrive from the recent past ({@link ExpectedArrivals}); inference
 * demand repeats one of the past week's days (drawn), shifted by up to {@link #DEMAND_SHIFT_MINUTES} either way; every
 * decision in it is the policy's own. It costs some hundreds of plans, so it runs beside the planning loop, never inside
 * it.
 */
public final class StartBands {
    /**
     * Futures per computation: enough for a 90th percentile, few enough to stay cheap. The bands have converged by 12:
     * on eight Philly windows of the bench (seeds 70-77), 16 futures gave a pooled calibrated coverage of P50 0.486 and P90
     * 0.878, 12 gave 0.490 and 0.868, 8 gave 0.491 and 0.901 with bands 9% wider; at 1,024 GPUs 12 cost 0.85 of 16's CPU
     * (`./horizon eta-cost --coverage` measures both at once; docs/control-plane.md, the ninth pass of issue 35).
     */
    public static final int SAMPLES = 12;
    /**
     * How far past the plan's horizon the control plane's futures play on, by default, for jobs not started by its end:
     * what gives a job queued behind a day's work a band at all. The bench's calibration plays none ({@code beyondSteps}
     * 0: a band past a window cannot be held to account), `./horizon eta-cost` this many unless told otherwise. A week:
     * since the futures re-partition MIG GPUs as the world does, the waiting jobs they leave without a P90 at 48 h are
     * ones that start in their third to seventh day; on the demo's day played on a week, 96-100% of the waiting jobs had
     * a planned start or a full band at every look from 15:00 on (45-100% at 48 h), for up to twice the CPU
     * (docs/control-plane.md, "Playing the futures on a week").
     */
    public static final int BEYOND_HOURS = 168;
    /** The furthest the futures may be played past the horizon: a month. */
    public static final int MAX_BEYOND_HOURS = 24 * 30;

    /** The steps of stepSeconds in beyondHours past the horizon, as {@link #of} takes them. */
    public static int beyondSteps(int beyondHours, long stepSeconds) {
        return (int) (beyondHours * 3600L / stepSeconds);
    }

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

    /** The fewest futures a band is read from: fewer say too little about a 90th percentile. */
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

    /**
     * How the futures are played: a policy for each (the futures played at once each need their own: a decision keeps
     * state while it is taken), where, and how many at once. The draws of every future are made in order on the
     * calling thread whatever the players, so the futures themselves do not depend on how they are played.
     */
    public record Players(Supplier<SchedulingPolicy> policies, Executor executor, int atOnce) {
        public Players {
            if (atOnce < 1) throw new IllegalArgumentException("atOnce must be >= 1 (got " + atOnce + ")");
        }

        /** One future after another on the calling thread, every decision by the one policy given. */
        public static Players oneAtATime(SchedulingPolicy policy) {
            return new Players(() -> policy, Runnable::run, 1);
        }
    }

    /** Bands for the tracked jobs, their futures played out to the end of the moment's horizon. */
    public static Map<String, Band> of(ClusterMoment m, Decision decided, SchedulingPolicy policy, ExpectedArrivals expected,
                                       Set<String> tracked, int samples, long seed) {
        return of(m, decided, policy, expected, tracked, samples, seed, 0);
    }

    /** Bands for the tracked jobs, every future played one after another on the calling thread by policy. */
    public static Map<String, Band> of(ClusterMoment m, Decision decided, SchedulingPolicy policy, ExpectedArrivals expected,
                                       Set<String> tracked, int samples, long seed, int beyondSteps) {
        return of(m, decided, Players.oneAtATime(policy), expected, tracked, samples, seed, beyondSteps);
    }

    /**
     * Bands for the tracked jobs (waiting ones of the moment), by id. decided: the policy's decision on this very moment
     * (every future starts from it); players: who plays the futures, how many at once; seed makes the draws repeatable;
     * beyondSteps: how many steps past the moment's horizon a future plays on for the jobs that have not started by then
     * (0: none). A future is played on only while a job it has not started is not yet {@link #settled}: once a job has
     * not started in more than half the futures, its P50 and every higher level are "none" whatever the rest say, so it
     * no longer keeps them going (the jobs the policy holds back for good, fair-share held or fitting nowhere, would
     * otherwise play every future to its end). A batch of futures played at once starts while the batch before it still
     * plays, and is given the jobs settled by the batches before that one; so every job's P50 and P90 are the same however
     * many are played at once, and are played the same way whatever the timing; only how many futures a settled job was
     * not followed in can differ with how many are played at once ({@link Band#unfollowed}).
     */
    public static Map<String, Band> of(ClusterMoment m, Decision decided, Players players, ExpectedArrivals expected,
                                       Set<String> tracked, int samples, long seed, int beyondSteps) {
        return played(m, decided, players, expected, tracked, samples, seed, beyondSteps, false, first -> { }, 0).bands();
    }

    /**
     * The bands of one computation, by job id, the expected arrivals its futures played ({@link LikeArrivals}), and each
     * job's starts in the queue alone (empty where none was asked for): the same moment played on with the same policy
     * and no work arriving, a condition a job without a P90 is told ("were no more work to arrive ahead of it"), never a
     * band: the expected arrivals are what a band has to reckon with (on the demo's day, at 18:30, they left 159 of 331
     * waiting jobs without a P50; the queue alone gave 330 one, docs/control-plane.md).
     */
    public record Computed(Map<String, Band> bands, LikeArrivals like, Map<String, Band> alone) {
    }

    /**
     * Futures of the queue alone a computation plays when asked: {@link #MIN_LEFT}, the fewest a band is read from, since
     * with nothing arriving only the drawn run lengths differ between them (12 made the demo's computations a third longer).
     */
    public static final int QUEUE_ALONE_SAMPLES = MIN_LEFT;

    /**
     * As {@link #of}, with the futures' early arrivals kept, so a job submitted after it can read its band off those like
     * it; within the horizon, a future is played on until those arrivals started too, or their waits would be cut short
     * wherever the tracked jobs all started first (a short queue).
     */
    public static Computed computed(ClusterMoment m, Decision decided, Players players, ExpectedArrivals expected,
                                    Set<String> tracked, int samples, long seed, int beyondSteps) {
        return computed(m, decided, players, expected, tracked, samples, seed, beyondSteps, first -> { });
    }

    /**
     * As above, and firstFutures is handed, once, every tracked job's band of the first futures played (at least {@link #MIN_LEFT},
     * the fewest a band is read from), while the others are still to be played: an answer for a job that has none yet in
     * a part of the computation's time. Not handed when there are no more futures than that.
     */
    public static Computed computed(ClusterMoment m, Decision decided, Players players, ExpectedArrivals expected,
                                    Set<String> tracked, int samples, long seed, int beyondSteps, Consumer<Map<String, Band>> firstFutures) {
        return played(m, decided, players, expected, tracked, samples, seed, beyondSteps, true, firstFutures, 0);
    }

    /**
     * As above, and with {@link #QUEUE_ALONE_SAMPLES} futures of the queue alone ({@link Computed#alone}), drawn from a
     * sequence of their own (the futures with arrivals are the ones played without them) and played in the slots the
     * futures with arrivals leave free, so a control plane with threads to spare answers them in no more wall time.
     */
    public static Computed computedWithQueueAlone(ClusterMoment m, Decision decided, Players players, ExpectedArrivals expected,
                                                  Set<String> tracked, int samples, long seed, int beyondSteps, Consumer<Map<String, Band>> firstFutures) {
        return played(m, decided, players, expected, tracked, samples, seed, beyondSteps, true, firstFutures, QUEUE_ALONE_SAMPLES);
    }

    private static Computed played(ClusterMoment m, Decision decided, Players players, ExpectedArrivals expected,
                                   Set<String> tracked, int samples, long seed, int beyondSteps, boolean followEarly,
                                   Consumer<Map<String, Band>> firstFutures, int aloneSamples) {
        if (beyondSteps < 0) throw new IllegalArgumentException("beyondSteps must be >= 0 (got " + beyondSteps + ")");
        Map<String, long[]> starts = new LinkedHashMap<>();
        tracked.forEach(id -> starts.put(id, new long[samples]));
        Map<String, Map<String, Integer>> stillWaiting = new HashMap<>();
        Map<String, Integer> notStarted = new HashMap<>(), unfollowed = new HashMap<>();
        Futures futures = new Futures(m, expected, new Random(seed), beyondSteps);
        List<List<LikeArrivals.Arrived>> early = new ArrayList<>();
        QueueAlone alone = new QueueAlone(m, decided, players, tracked, seed, beyondSteps, aloneSamples);
        Batch playing = null;
        for (int from = 0; from < samples; from += players.atOnce()) {
            // settled by the batches folded so far: every one but the batch still playing, so the next starts meanwhile
            Set<String> followed = new HashSet<>();
            for (String id : tracked) if (!settled(notStarted.getOrDefault(id, 0), samples)) followed.add(id);
            Batch next = new Batch(from, followed);
            for (int k = from; k < Math.min(samples, from + players.atOnce()); k++) {
                // each future is played as soon as it is drawn: the draws are in order, the plays need not wait for all of them
                Projection p = futures.draw(k, players.policies().get(), followEarly);
                next.projections.add(p);
                next.played.add(CompletableFuture.supplyAsync(() -> p.firstStarts(decided, tracked, followed, futures.until), players.executor()));
            }
            alone.fill(players.atOnce() - next.projections.size());
            if (playing != null) playing.fold(tracked, starts, notStarted, unfollowed, early, stillWaiting);
            playing = next;
            int done = playing.from;
            if (done < samples && done >= MIN_LEFT && done - players.atOnce() < MIN_LEFT) {
                firstFutures.accept(bands(starts, done, futures.horizonEnd, stillWaiting, unfollowed));
            }
        }
        if (playing != null) playing.fold(tracked, starts, notStarted, unfollowed, early, stillWaiting);
        return new Computed(bands(starts, samples, futures.horizonEnd, stillWaiting, unfollowed), LikeArrivals.of(early, m.now(), futures.horizonEnd),
                alone.bands());
    }

    /**
     * Futures started together, from index from, following the jobs not settled before them. The next batch starts
     * while this one plays, so a thread whose future ended early takes the next one instead of waiting for the slowest
     * of its batch (at 10,240 GPUs a future takes 6 to 32 s of CPU; waiting cost half again the wall time at two threads).
     */
    private record Batch(int from, Set<String> followed, List<Projection> projections, List<CompletableFuture<Map<String, Long>>> played) {
        Batch(int from, Set<String> followed) {
            this(from, followed, new ArrayList<>(), new ArrayList<>());
        }

        /** Waits for the batch and adds each future's starts, the jobs it did not start or follow, its early arrivals and its reasons. */
        void fold(Set<String> tracked, Map<String, long[]> starts, Map<String, Integer> notStarted, Map<String, Integer> unfollowed,
                  List<List<LikeArrivals.Arrived>> early, Map<String, Map<String, Integer>> stillWaiting) {
            List<Map<String, Long>> firsts = joined(played);
            for (int i = 0; i < projections.size(); i++) {
                Map<String, Long> first = firsts.get(i);
                boolean cut = first.keySet().containsAll(followed);
                for (String id : tracked) {
                    starts.get(id)[from + i] = first.getOrDefault(id, Long.MAX_VALUE);
                    if (first.containsKey(id)) continue;
                    notStarted.merge(id, 1, Integer::sum);
                    if (cut) unfollowed.merge(id, 1, Integer::sum);
                }
                early.add(projections.get(i).arrivedEarly());
                projections.get(i).waitReasons().forEach((id, why) -> stillWaiting.computeIfAbsent(id, x -> new HashMap<>()).merge(why, 1, Integer::sum));
            }
        }
    }

    /**
     * The futures of the queue alone of one computation: drawn from their own sequence, started in the slots the futures
     * with arrivals leave free, the rest after them; each follows every tracked job (which ones lack a P90 is known only
     * once the others are played).
     */
    private static final class QueueAlone {
        private final Decision decided;
        private final Players players;
        private final Set<String> tracked;
        private final int samples;
        private final Futures futures;
        private final List<CompletableFuture<Map<String, Long>>> played = new ArrayList<>();

        QueueAlone(ClusterMoment m, Decision decided, Players players, Set<String> tracked, long seed, int beyondSteps, int samples) {
            this.decided = decided;
            this.players = players;
            this.tracked = tracked;
            this.samples = samples;
            this.futures = samples == 0 ? null : new Futures(m, ExpectedArrivals.NONE, new Random(~seed), beyondSteps);
        }

        /** Starts up to free more of its futures. */
        void fill(int free) {
            for (int k = 0; k < free && played.size() < samples; k++) {
                Projection p = futures.draw(played.size(), players.policies().get(), false);
                played.add(CompletableFuture.supplyAsync(() -> p.firstStarts(decided, tracked, tracked, futures.until), players.executor()));
            }
        }

        /** Plays the futures not started yet, a batch at a time, and gives every tracked job's starts in all of them. */
        Map<String, Band> bands() {
            while (played.size() < samples) {
                int before = played.size();
                fill(players.atOnce());
                joined(played.subList(before, played.size()));
            }
            if (samples == 0) return Map.of();
            Map<String, long[]> starts = new LinkedHashMap<>();
            List<Map<String, Long>> firsts = joined(played);
            for (String id : tracked) {
                long[] s = new long[samples];
                for (int k = 0; k < samples; k++) s[k] = firsts.get(k).getOrDefault(id, Long.MAX_VALUE);
                starts.put(id, s);
            }
            return StartBands.bands(starts, samples, futures.horizonEnd, Map.of(), Map.of());
        }
    }

    /** Each job's band of the first played futures. */
    private static Map<String, Band> bands(Map<String, long[]> starts, int played, long horizonEnd, Map<String, Map<String, Integer>> stillWaiting,
                                           Map<String, Integer> unfollowed) {
        Map<String, Band> out = new LinkedHashMap<>();
        starts.forEach((id, s) -> {
            long[] sorted = Arrays.copyOf(s, played);
            Arrays.sort(sorted);
            out.put(id, new Band(sorted, horizonEnd, mostSaid(stillWaiting.get(id)), unfollowed.getOrDefault(id, 0)));
        });
        return out;
    }

    /** Waits for every future of a batch: their first starts, in the batch's order. */
    private static List<Map<String, Long>> joined(List<CompletableFuture<Map<String, Long>>> played) {
        List<Map<String, Long>> out = new ArrayList<>();
        try {
            for (CompletableFuture<Map<String, Long>> f : played) out.add(f.join());
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw e;
        }
        return out;
    }

    /**
     * What every future of one computation shares, and its draws: each future's durations, expected arrivals and
     * inference day, drawn in the order of the futures from one random sequence.
     */
    private static final class Futures {
        private final ClusterMoment m;
        private final ExpectedArrivals expected;
        private final Random rng;
        private final Surprises surprises;
        private final long horizonEnd, until;
        private final DurationDraws.RunningSiblings running;
        private final Map<String, Optional<RecentRuns>> windows = new HashMap<>();

        Futures(ClusterMoment m, ExpectedArrivals expected, Random rng, int beyondSteps) {
            this.m = m;
            this.expected = expected;
            this.rng = rng;
            this.surprises = Surprises.of(m.durations());
            this.horizonEnd = m.now() + m.horizonSteps() * m.stepSeconds();
            this.until = horizonEnd + beyondSteps * m.stepSeconds();
            // the running jobs, once: every window, the expected arrivals' of every future too, looks among them for its sweep
            this.running = new DurationDraws.RunningSiblings(m.jobs().stream().filter(ActiveJob::isRunning).toList());
            for (ActiveJob j : m.jobs()) windows.put(j.id(), DurationDraws.window(j, m.durations(), running, m.now()));
        }

        /** Future k, drawn now (futures are drawn in order), to be played by policy. */
        Projection draw(int k, SchedulingPolicy policy, boolean followEarly) {
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
            return new Projection(m, policy, totals, arrivals, day, shift, followEarly);
        }
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
