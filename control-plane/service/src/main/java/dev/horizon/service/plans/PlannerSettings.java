package dev.horizon.service.plans;

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
}
