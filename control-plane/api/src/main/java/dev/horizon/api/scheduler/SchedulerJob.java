package dev.horizon.api.scheduler;

import dev.horizon.api.integration.PlannedPlacement;

/** A job as the control plane sees it; placement is set while it is RUNNING. */
public record SchedulerJob(String id, State state, PlannedPlacement placement) {
    /** The control plane's job states. */
    public enum State {
        PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED;

        public boolean finished() {
            return this == SUCCEEDED || this == FAILED || this == CANCELLED;
        }
    }
}
