package dev.horizon.simulation;

import dev.horizon.allocator.eta.DurationDraws;
import dev.horizon.allocator.moment.ActiveJob;
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
 * band meets it on this window, and the shares below and above it how often a calibrated band misses early and late.
 * Read a window's coverage against them: a miss where the odds were 0.3 says little, misses that lean one way over many
 * windows say the bands do.
 */
public final class CalibratedOdds {
    /** Monte Carlo trials per figure: the odds are good to about a hundredth. */
    static final int TRIALS = 4000;

    /** A coverage target, met within low..high inclusive. */
    public record Target(double low, double high) {
    }

    private CalibratedOdds() {
    }

    /**
     * The bursts among jobs: one team and class asking for the same GPUs, each arrival within
     * {@link DurationDraws#BURST_GAP_SECONDS} of the one before (chained, so every job is in exactly one); each burst
     * as its jobs' ids, bursts in the order of their first arrival.
     */
    static List<List<String>> bursts(List<ActiveJob> jobs) {
        List<ActiveJob> byArrival = new ArrayList<>(jobs);
        byArrival.sort(Comparator.comparingLong(ActiveJob::arrivalSeconds).thenComparing(ActiveJob::id));
        Map<String, List<String>> open = new LinkedHashMap<>();
        Map<String, Long> lastArrival = new LinkedHashMap<>();
        List<List<String>> bursts = new ArrayList<>();
        for (ActiveJob j : byArrival) {
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

    /** The shares of trials whose coverage fell below the target (bands too early), within it, and above it (too late). */
    public record Odds(double tooEarly, double within, double tooLate) {
        static final Odds NONE = new Odds(Double.NaN, Double.NaN, Double.NaN);
    }

    /**
     * Where coverage at level lands against target when each burst of sizes (its jobs held to account at that level)
     * comes true as one with odds level; {@link Odds#NONE} without a job to hold to account. Seeded, so a run repeats.
     */
    static Odds of(List<Integer> sizes, double level, Target target) {
        int total = sizes.stream().mapToInt(Integer::intValue).sum();
        if (total == 0) return Odds.NONE;
        Random random = new Random(1);
        int below = 0, above = 0;
        for (int t = 0; t < TRIALS; t++) {
            int covered = 0;
            for (int n : sizes) if (random.nextDouble() < level) covered += n;
            double coverage = covered / (double) total;
            if (coverage < target.low()) below++;
            else if (coverage > target.high()) above++;
        }
        return new Odds(below / (double) TRIALS, (TRIALS - below - above) / (double) TRIALS, above / (double) TRIALS);
    }
}
