package dev.horizon.service.plans;

import dev.horizon.fairshare.BudgetTree;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The planner's settings ({@code horizon.planner.*}), read in one place; the defaults are in application.properties. */
@ConfigMapping(prefix = "horizon.planner")
public interface PlannerSettings {
    /** The length of one plan step in seconds; the loop plans at least once a step. */
    long stepSeconds();

    /** How many steps ahead the plan looks. */
    int horizonSteps();

    /** Events within this many milliseconds share one plan. */
    long debounceMillis();

    /** How many node-pool groups are planned at once. */
    @WithDefault("2")
    int poolThreads();

    /** How often CP-SAT's full mode runs, in seconds (0: never). */
    long fullModeSeconds();

    /** CP-SAT's time limit per full-mode run. */
    double fullModeTimeLimitSeconds();

    /** The most jobs CP-SAT models in one full-mode run. */
    int fullModeMaxJobs();

    /**
     * Each this many hours a job waits doubles the priority its team's budget ranks it by, up to its team's most urgent
     * work (0: never, the default; see {@link BudgetTree#withAgeDoubling}).
     */
    @WithDefault("0")
    int ageDoublingHours();

    /** {@link #ageDoublingHours()} in seconds, refused where out of range, naming the setting. */
    default long ageDoublingSeconds() {
        int hours = ageDoublingHours();
        if (hours < 0 || hours * 3600L > BudgetTree.MAX_AGE_DOUBLING_SECONDS) {
            throw new IllegalArgumentException("horizon.planner.age-doubling-hours must be 0 (off) to "
                    + BudgetTree.MAX_AGE_DOUBLING_SECONDS / 3600 + " (got " + hours + ")");
        }
        return hours * 3600L;
    }
}
