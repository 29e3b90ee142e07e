package dev.horizon.allocator.eta;

import dev.horizon.allocator.moment.JobState;
import dev.horizon.forecast.DurationEstimator;
import dev.horizon.forecast.DurationEstimator.Finished;
import dev.horizon.forecast.RecentRuns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * How far a burst's runs fell from the runs it would have been drawn from: per past burst of at least {@link #MIN_RUNS}
 * ended runs, the log of its median run over the median of the window its jobs drew from when it arrived (the team's
 * runs of the class ended by then, else the class's, as {@link DurationEstimator#runs} chooses). A team's history says
 * little of its next sweep: over the 31 Philly bench windows, a burst's median was under a third of the window's for one
 * burst in ten and over thirteen times it for one in ten. Drawn one by one from the window, a sweep's jobs come out about
 * as long as the window's runs, with any one of them unlikely to run far longer, so the futures never hold the sweep that
 * runs long as a whole. In each future a burst of waiting or running jobs draws one level from these, and its runs spread
 * around the window scaled by it. Bursts are counted from ended runs only, so sweeps whose long runs have not ended yet
 * are missing: the levels lean short.
 *
 * @param sortedLogRatios the bursts' log ratios, ascending (empty: too few bursts to learn from, no level is drawn)
 */
record BurstLevels(double[] sortedLogRatios) {
    /** Ended runs a past burst needs before its median says how it ran. */
    static final int MIN_RUNS = 3;
    /** Past bursts needed before their levels are drawn at all. */
    static final int MIN_BURSTS = 20;
    static final BurstLevels NONE = new BurstLevels(new double[0]);

    static BurstLevels of(DurationEstimator durations) {
        List<Finished> runs = new ArrayList<>(durations.finished());
        runs.sort(Comparator.comparingLong(Finished::endSeconds));
        List<Double> ratios = new ArrayList<>();
        for (List<Finished> burst : chained(runs, f -> f.team() + "/" + f.jobClass() + "/" + f.gpus(), Finished::arrivalSeconds).values()) {
            if (burst.size() < MIN_RUNS) continue;
            long first = burst.stream().mapToLong(Finished::arrivalSeconds).min().orElseThrow();
            long window = windowMedian(runs, burst.get(0), first);
            long median = median(burst.stream().map(Finished::durationSeconds).toList());
            if (window > 0 && median > 0) ratios.add(Math.log(median / (double) window));
        }
        if (ratios.size() < MIN_BURSTS) return NONE;
        double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        return new BurstLevels(sorted);
    }

    boolean learnt() {
        return sortedLogRatios.length > 0;
    }

    /** The level at uniform u: the factor a burst's window is scaled by in one future (1 when nothing was learnt). */
    double factor(double u) {
        if (!learnt()) return 1;
        return Math.exp(sortedLogRatios[Math.min(sortedLogRatios.length - 1, (int) Math.floor(u * sortedLogRatios.length))]);
    }

    /**
     * The bursts among jobs: those of one team, class and GPU count whose arrivals follow one another within
     * {@link DurationDraws#BURST_GAP_SECONDS}, each burst a number; a job alone in its burst has none.
     */
    static Map<String, Integer> bursts(List<JobState> jobs) {
        Map<String, Integer> out = new HashMap<>();
        int n = 0;
        for (List<JobState> burst : chained(jobs, j -> j.team() + "/" + j.jobClass() + "/" + j.gpus(), JobState::arrivalSeconds).values()) {
            if (burst.size() < 2) continue;
            for (JobState j : burst) out.put(j.id(), n);
            n++;
        }
        return out;
    }

    /** Items grouped by shape, each group cut where an arrival comes more than the burst gap after the one before. */
    private static <T> Map<String, List<T>> chained(List<T> items, Function<T, String> shape, Function<T, Long> arrival) {
        Map<String, List<T>> byShape = new LinkedHashMap<>();
        for (T t : items) byShape.computeIfAbsent(shape.apply(t), k -> new ArrayList<>()).add(t);
        Map<String, List<T>> out = new LinkedHashMap<>();
        byShape.forEach((key, group) -> {
            List<T> sorted = new ArrayList<>(group);
            sorted.sort(Comparator.comparing(arrival));
            int burst = 0;
            long last = Long.MIN_VALUE;
            for (T t : sorted) {
                long at = arrival.apply(t);
                if (last != Long.MIN_VALUE && at - last > DurationDraws.BURST_GAP_SECONDS) burst++;
                last = at;
                out.computeIfAbsent(key + "#" + burst, k -> new ArrayList<>()).add(t);
            }
        });
        return out;
    }

    /** The median of the window a job like run drew from at time at (0: no window then); runs sorted by end. */
    private static long windowMedian(List<Finished> runs, Finished run, long at) {
        List<Long> team = new ArrayList<>(), cls = new ArrayList<>();
        for (int i = runs.size() - 1; i >= 0 && team.size() < RecentRuns.KEEP; i--) {
            Finished f = runs.get(i);
            if (f.endSeconds() > at || f.jobClass() != run.jobClass()) continue;
            if (f.team().equals(run.team())) team.add(f.durationSeconds());
            if (cls.size() < RecentRuns.KEEP) cls.add(f.durationSeconds());
        }
        if (team.size() >= DurationEstimator.MIN_SAMPLES) return median(team);
        return cls.size() >= DurationEstimator.MIN_SAMPLES ? median(cls) : 0;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get((sorted.size() - 1) / 2);
    }
}
