package dev.horizon.service.jobs;

public enum JobState {
    PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED;

    public boolean finished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }
}
