package dev.horizon.allocator.eta;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Turns raw start-time bands into the bands a user is shown, kept honest by what became of the bands it showed before:
 * the one rule both the bench and the control plane apply. Per quantile level it keeps a factor on the wait a raw band
 * says (online quantile tracking, as adaptive conformal inference does): each job's first shown band is followed, and at
 * each level the factor moves later when the job was still waiting past that level's time (known once the time has
 * passed) and earlier when it started by then (known when it starts), by steps sized so that in the long run a share
 * {@code level} of bands come true. A level shown as beyond the horizon came true when the job starts (it started no
 * later than "not within the horizon") and never misses, so far-off bands that start early pull the others earlier: the
 * share that comes true is held at the level over every band shown, as the bench measures it. A band only ever learns
 * from starts reported and times passed by the moment it is shown; a job that never starts only ever pushes bands later.
 * Memory is bounded: a job is followed until it starts or every level it can still learn from has passed (at most
 * {@link #MAX_FOLLOWED} at once). Not thread-safe: one caller
 * feeds it, in time order.
 */
public final class Calibrator {
    /** The quantile levels bands are calibrated and charted at; index {@link #P50} is the median, {@link #P90} the 90th percentile. */
    public static final double[] LEVELS = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    public static final int P50 = 4, P90 = 8;
    /**
     * How far one outcome moves a level's log factor: a miss moves it later by STEP * level, a hit earlier by STEP * (1 -
     * level). Large enough to undo a raw band twice too late within some tens of outcomes, small enough that one burst of
     * jobs banded together does not swing it far: a sweep's hundreds of bands come true or miss together, and at 0.08 a
     * busy day's sweep left the median's factor at 0.15 with raw bands that were about right, multiplying the median's
     * error by five (seed 2 / day 10 of the Philly bench).
     */
    static final double STEP = 0.04;
    /** The factor stays within 1/MAX_FACTOR..MAX_FACTOR: a run of outcomes of one kind must not leave it where no later one can undo it soon. */
    static final double MAX_FACTOR = 10;
    /** Seconds added to a band's wait before it is scaled, so a band that said "now" still has a scale. */
    static final double SLACK_SECONDS = 60;
    /** Jobs followed at most (the oldest are let go first): bounds memory when starts are never reported. */
    static final int MAX_FOLLOWED = 20_000;

    /**
     * What a calibrator has learnt: per level of {@link #LEVELS}, its log factor and how many outcomes it learnt from. A
     * control plane keeps it in its store, so a restart or a new leader resumes the calibration instead of starting over.
     */
    public record Learnt(double[] logFactors, int[] outcomes) {
        public Learnt {
            if (logFactors.length != LEVELS.length || outcomes.length != LEVELS.length) {
                throw new IllegalArgumentException("a calibration has one factor and one count per level: " + LEVELS.length + " of each (got "
                        + logFactors.length + " and " + outcomes.length + ")");
            }
            logFactors = logFactors.clone();
            outcomes = outcomes.clone();
        }
    }

    /** A followed job: per level, whether its outcome is still to learn. */
    private record Followed(boolean[] open) {
    }

    /** A level's shown start: when it passes without a start, that level missed. */
    private record Due(long at, String jobId, int level) {
    }

    private final double[] logFactors = new double[LEVELS.length];
    private final Map<String, Followed> followed = new LinkedHashMap<>();
    private final Map<String, Boolean> seen = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > 4 * MAX_FOLLOWED;
        }
    };
    private final PriorityQueue<Due> dues = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
    private final int[] outcomes = new int[LEVELS.length];

    /** The job started at {@code at}: each level of its first band not yet decided came true. Only its first start counts. */
    public void started(String jobId, long at) {
        passTo(at);
        Followed f = followed.remove(jobId);
        if (f == null) return;
        for (int i = 0; i < LEVELS.length; i++) if (f.open()[i]) learn(i, false);
    }

    /**
     * The job left the queue without starting (cancelled): whether its band would have come true is never known, so its
     * levels still open teach nothing (counted as misses, every cancelled job would push the bands later).
     */
    public void dropped(String jobId) {
        followed.remove(jobId);
    }

    /**
     * The band to show for a job at {@code at}, per level of {@link #LEVELS} (epoch seconds; null: beyond the horizon),
     * calibrated on what is known by then. The first band shown of a job is followed for the calibrations after it.
     */
    public Long[] shown(String jobId, long at, StartBands.Band raw) {
        passTo(at);
        Long[] out = scaled(learnt(), at, raw);
        if (seen.put(jobId, Boolean.TRUE) == null) follow(jobId, out);
        return out;
    }

    /**
     * A raw band as a calibration that had learnt what {@code learnt} holds shows it at {@code at}, per level (null:
     * beyond the horizon), following nothing: how a band is read again later, after its time passed without a start.
     */
    public static Long[] scaled(Learnt learnt, long at, StartBands.Band raw) {
        Long[] out = new Long[LEVELS.length];
        for (int i = 0; i < LEVELS.length; i++) {
            out[i] = scaled(Math.exp(learnt.logFactors()[i]), at, raw.at(LEVELS[i]));
            // a later level never says an earlier start than the one below it
            if (i > 0 && out[i] != null && out[i - 1] != null && out[i] < out[i - 1]) out[i] = out[i - 1];
        }
        return out;
    }

    /** The factor on the wait (plus {@link #SLACK_SECONDS}) that a raw band's level i is scaled by now. */
    public double factor(int i) {
        return Math.exp(logFactors[i]);
    }

    /** How many outcomes level i has learnt from. */
    public int outcomes(int i) {
        return outcomes[i];
    }

    public Learnt learnt() {
        return new Learnt(logFactors, outcomes);
    }

    /**
     * Goes on from what another calibrator learnt (each factor kept within its bounds); the jobs this one follows stay
     * followed, and what they teach from now on moves the resumed factors.
     */
    public void resume(Learnt learnt) {
        double bound = Math.log(MAX_FACTOR);
        for (int i = 0; i < LEVELS.length; i++) {
            double f = learnt.logFactors()[i];
            logFactors[i] = Double.isFinite(f) ? Math.max(-bound, Math.min(bound, f)) : 0;
            outcomes[i] = Math.max(0, learnt.outcomes()[i]);
        }
    }

    private static Long scaled(double factor, long at, Long rawAt) {
        if (rawAt == null) return null;
        double wait = factor * (Math.max(0, rawAt - at) + SLACK_SECONDS) - SLACK_SECONDS;
        return at + Math.max(0, Math.round(wait));
    }

    private void follow(String jobId, Long[] shown) {
        boolean[] open = new boolean[shown.length];
        Arrays.fill(open, true);
        followed.put(jobId, new Followed(open));
        for (int i = 0; i < shown.length; i++) if (shown[i] != null) dues.add(new Due(shown[i], jobId, i));
        if (followed.size() > MAX_FOLLOWED) followed.remove(followed.keySet().iterator().next());
    }

    /** Time has come to now: each followed level whose start has passed without the job starting missed. */
    private void passTo(long now) {
        while (!dues.isEmpty() && dues.peek().at() < now) {
            Due d = dues.poll();
            Followed f = followed.get(d.jobId());
            if (f == null || !f.open()[d.level()]) continue;
            f.open()[d.level()] = false;
            learn(d.level(), true);
            if (!anyOpen(f)) followed.remove(d.jobId());
        }
    }

    private static boolean anyOpen(Followed f) {
        for (boolean o : f.open()) if (o) return true;
        return false;
    }

    /** One outcome at level i: the pinball loss's gradient step on the log factor, within the factor's bounds. */
    private void learn(int i, boolean missed) {
        double bound = Math.log(MAX_FACTOR);
        logFactors[i] = Math.max(-bound, Math.min(bound, logFactors[i] + (missed ? STEP * LEVELS[i] : -STEP * (1 - LEVELS[i]))));
        outcomes[i]++;
    }
}
