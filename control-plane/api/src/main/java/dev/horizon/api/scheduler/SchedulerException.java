package dev.horizon.api.scheduler;

/** The control plane could not be reached or refused a call; the message says which call and why. */
public class SchedulerException extends RuntimeException {
    public SchedulerException(String message, Throwable cause) {
        super(message, cause);
    }
}
