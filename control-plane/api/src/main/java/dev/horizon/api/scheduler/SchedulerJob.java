package dev.horizon.api.scheduler;

import dev.horizon.api.integration.PlannedPlacement;

/**
 * A job as the control plane sees it; placement is set while it is RUNNING. leaderEpoch: the epoch of the control-plane
 * leader that placed the job or last confirmed its placement (0 when not running or unknown); see {@link LeaderEpochFence}.
 */
public record SchedulerJob(String id, State state, PlannedPlacement placement, long leaderEpoch) {
    /** A job without a leader epoch, as a control plane without leader election reports it. */
    public SchedulerJob(String id, State state, PlannedPlacement placement) {
        this(id, state, placement, 0);
    }

    /** The control plane's job states. */
    public enum State {
        PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED;

        public boolean finished() {
            return this == SUCCEEDED || this == FAILED || this == CANCELLED;
        }
    }
}
