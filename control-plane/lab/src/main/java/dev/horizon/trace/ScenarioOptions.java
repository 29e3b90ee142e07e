package dev.horizon.trace;

import dev.horizon.fairshare.BudgetTree;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The knobs of `./horizon bench`. gpus, days: null means the scenario's own default. load: batch
 * GPU-hours drawn as a multiple of the window's GPU-hours left after inference demand. ageDoublingHours: the scenario's
 * budgets age waiting work every that many hours (0: never; null: as the scenario has them, off but on demo-day).
 */
public record ScenarioOptions(long seed, Integer gpus, Integer days, double load, double rtPeakShare, int traceStartDay,
                              Path traceDir, Integer teams, Path budgets, Integer ageDoublingHours) {
    public static final long STEP_SECONDS = 900;
    public static final int HORIZON_STEPS = 96;
    /** The share of the GPUs real-time inference peaks at, unless a scenario or --rt-peak-share says otherwise. */
    public static final double DEFAULT_RT_PEAK_SHARE = 0.4;
    /** Where the traces are looked for unless --trace-dir says otherwise: the shared folder beside the checkout. */
    public static final String DEFAULT_TRACE_DIR = "../shared/traces";
    /** The longest --age-doubling-hours: a year, the budget tree's own limit. */
    public static final int MAX_AGE_DOUBLING_HOURS = (int) (BudgetTree.MAX_AGE_DOUBLING_SECONDS / 3600);

    public ScenarioOptions {
        if (gpus != null && gpus < 1) throw new IllegalArgumentException("--gpus must be at least 1 (got " + gpus + ")");
        if (days != null && days < 1) throw new IllegalArgumentException("--days must be at least 1 (got " + days + ")");
        if (!(load > 0)) throw new IllegalArgumentException("--load must be above 0 (got " + load + ")");
        if (!(rtPeakShare >= 0 && rtPeakShare < 1)) throw new IllegalArgumentException("--rt-peak-share must be in [0, 1) (got " + rtPeakShare + ")");
        if (traceStartDay < 0) throw new IllegalArgumentException("--trace-start-day must be >= 0 (got " + traceStartDay + ")");
        if (teams != null && (teams < 2 || teams > 200)) throw new IllegalArgumentException("--teams must be between 2 and 200 (got " + teams + ")");
        if (ageDoublingHours != null && (ageDoublingHours < 0 || ageDoublingHours > MAX_AGE_DOUBLING_HOURS)) {
            throw new IllegalArgumentException("--age-doubling-hours must be 0 (off) to " + MAX_AGE_DOUBLING_HOURS + " (got " + ageDoublingHours + ")");
        }
    }

    public ScenarioOptions(long seed, Integer gpus, Integer days, double load, double rtPeakShare, int traceStartDay, Path traceDir) {
        this(seed, gpus, days, load, rtPeakShare, traceStartDay, traceDir, null, null, null);
    }

    /**
     * The first entries of a drawn scenario's description (results.json's scenario block), in the order every one of them
     * prints: what it is and the knobs it was drawn with; the caller adds what is its own.
     */
    public Map<String, Object> describe(String name, String source, int gpus, int days) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("name", name);
        info.put("source", source);
        info.put("gpus", gpus);
        info.put("days", days);
        info.put("seed", seed);
        info.put("load", load);
        return info;
    }
}
