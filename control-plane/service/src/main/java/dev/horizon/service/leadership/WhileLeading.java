package dev.horizon.service.leadership;

import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;

/**
 * Runs a timer only while this replica leads: {@code @Scheduled(..., skipExecutionIf = WhileLeading.class)} skips each
 * tick on a follower, for work that is the leader's (losing nodes, expiring commands, retention, driving the GPU
 * operator). Timers every replica runs (its own streams, its gauges) do without it, and so do the three loops on threads
 * of their own, which are not leader-only ticks: the Planner's (a follower's step forwards its plan request, and
 * {@code planNow} and the debounced requests share its one thread so plans never overlap), FullMode's (a follower records
 * its run as "follower"; a CP-SAT run sets the next one's delay, and 0 seconds turns it off) and Leadership's (the
 * election itself, on every replica, also where the scheduler is off, as in the bench's service engine; it polls
 * followers' requests every 250 ms, finer than the scheduler's 1 s tick).
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
