package dev.horizon.service.leadership;

import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;

/**
 * Runs a timer only while this replica leads: {@code @Scheduled(..., skipExecutionIf = WhileLeading.class)} skips each
 * tick on a follower, for work that is the leader's (losing nodes, expiring commands, retention, driving the GPU
 * operator). Timers every replica runs (its own streams, its gauges) do without it.
 */
@Singleton
public class WhileLeading implements Scheduled.SkipPredicate {
    /** Looked up on the first tick: the scheduler makes this predicate while the leadership bean may itself be in the making. */
    @Inject
    Provider<Leadership> leadership;

    @Override
    public boolean test(ScheduledExecution execution) {
        return !leadership.get().leading();
    }
}
