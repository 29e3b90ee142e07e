package dev.horizon.simulation;

import dev.horizon.allocator.eta.DurationDraws;
import dev.horizon.allocator.moment.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * How often a perfectly calibrated band would put one window's coverage within a target. A window's outcomes are its
 * bursts' rather than its jobs': a sweep's jobs wait behind the same work and start on time or late together, so a
 * window of two large sweeps is about two coin flips however many jobs it bands. Each burst is taken to come true as one,
 * with odds equal to the level; the share of trials whose coverage lands within the target is the chance a calibrated
 * band meets it on this window. Read a window's coverage against it: a miss where the odds were 0.3 says little.
 */
public final class CalibratedOdds {
    /** Monte Carlo trials per figure: the odds are good to about a hundredth. */
    static final int TRIALS = 4000;

    /** A coverage target, met within low..high inclusive. */
    public record Target(double low, double high) {
        boolean holds(double coverage) {
            return coverage >= low && coverage <= high;
        }
    }

    private CalibratedOdds() {
    }

    /**
     * The bursts among jobs: one team and class asking for the same GPUs, each arrival within
     * {@link DurationDraws#BURST_GAP_SECONDS} of the one before (chained, so every job is in exactly one); each burst
     * as its jobs' ids, bursts in the order of their first arrival.
     */
    static List<List<String>> bursts(List<JobState> jobs) {
        List<JobState> byArrival = new ArrayList<>(jobs);
        byArrival.sort(Comparator.comparingLong(JobState::arrivalSeconds).thenComparing(JobState::id));
        Map<String, List<String>> open = new LinkedHashMap<>();
        Map<String, Long> lastArrival = new LinkedHashMap<>();
        List<List<String>> bursts = new ArrayList<>();
        for (JobState j : byArrival) {
            String shape = j.team() + "\u0000" + j.jobClass() + "\u0000" + j.gpus();
            Long last = lastArrival.put(shape, j.arrivalSeconds());
            if (last == null || j.arrivalSeconds() - last > DurationDraws.BURST_GAP_SECONDS) {
                List<String> burst = new ArrayList<>();
                bursts.add(burst);
                open.put(shape, burst);
            }
            open.get(shape).add(j.id());
        }
        return bursts;
    }

    /**
     * The chance that coverage at level lands within target when each burst of sizes (its jobs held to account at that
     * level) comes true as one with odds level; NaN without a job to hold to account. Seeded, so a run repeats.
     */
    static double of(List<Integer> sizes, double level, Target target) {
        int total = sizes.stream().mapToInt(Integer::intValue).sum();
        if (total == 0) return Double.NaN;
        Random random = new Random(1);
        int within = 0;
        for (int t = 0; t < TRIALS; t++) {
            int covered = 0;
            for (int n : sizes) if (random.nextDouble() < level) covered += n;
            if (target.holds(covered / (double) total)) within++;
        }
        return within / (double) TRIALS;
    }
}
