package dev.horizon.allocator.eta;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns raw start-time bands into the bands a user is shown, calibrated on what became of the bands said before: the
 * one rule both the bench and the control plane apply. It learns from each job's first band (the one said when the job
 * was first planned, before anything about its wait was known) and from each job's first start; a job still waiting
 * tells it only that it started later than now. Not thread-safe: one caller feeds it, in time order.
 */
public final class Calibrator {
    /** The quantile levels bands are calibrated and charted at; index {@link #P50} is the median, {@link #P90} the 90th percentile. */
    public static final double[] LEVELS = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    public static final int P50 = 4, P90 = 8;
    /** How many of the latest first bands calibrate the next ones. */
    static final int WINDOW = 500;

    /** A job's first band: when it was said, and its raw band. */
    private record First(long at, StartBands.Band raw) {
    }

    private final Map<String, First> firsts = new LinkedHashMap<>();
    private final Map<String, Long> firstStarts = new HashMap<>();
    private long calibratedAt = Long.MIN_VALUE;
    private Recalibration current;

    /** The job started at {@code at}; only its first start counts. */
    public void started(String jobId, long at) {
        if (firsts.containsKey(jobId)) firstStarts.putIfAbsent(jobId, at);
    }

    /** The job's first start, if it started after its first band was said. */
    public Long firstStart(String jobId) {
        return firstStarts.get(jobId);
    }

    /** Whether a first band of the job is remembered. */
    public boolean hasFirst(String jobId) {
        return firsts.containsKey(jobId);
    }

    /**
     * The band to show for a job at {@code at}, per level of {@link #LEVELS} (epoch seconds; null: beyond the horizon),
     * calibrated on what is known by then. The first band said of a job is remembered for the calibrations after it.
     */
    public Long[] shown(String jobId, long at, StartBands.Band raw) {
        Recalibration recal = recalibration(at);
        Long[] out = new Long[LEVELS.length];
        for (int i = 0; i < LEVELS.length; i++) out[i] = recal.at(i, at, raw.at(LEVELS[i]));
        if (!firsts.containsKey(jobId)) remember(jobId, new First(at, raw));
        return out;
    }

    private void remember(String jobId, First first) {
        firsts.put(jobId, first);
        if (firsts.size() <= WINDOW) return;
        String oldest = firsts.keySet().iterator().next();
        firsts.remove(oldest);
        firstStarts.remove(oldest);
    }

    /** The calibration for bands said at {@code at}, made once per moment. */
    private Recalibration recalibration(long at) {
        if (current == null || at != calibratedAt) {
            current = Recalibration.of(LEVELS, outcomes(at));
            calibratedAt = at;
        }
        return current;
    }

    /** What became of the remembered first bands by now: each raw wait per level, and the wait seen since. */
    private List<Recalibration.Outcome> outcomes(long now) {
        List<Recalibration.Outcome> out = new ArrayList<>();
        firsts.forEach((id, f) -> {
            double[] said = new double[LEVELS.length];
            for (int i = 0; i < LEVELS.length; i++) {
                Long q = f.raw().at(LEVELS[i]);
                said[i] = q == null ? -1 : q - f.at();
            }
            Long start = firstStarts.get(id);
            out.add(new Recalibration.Outcome(said, (start != null ? start : now) - f.at(), start != null));
        });
        return out;
    }
}
