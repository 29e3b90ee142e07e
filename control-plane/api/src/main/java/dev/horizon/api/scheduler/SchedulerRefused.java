package dev.horizon.api.scheduler;

/**
 * The control plane answered and refused the call (a 4xx: no such team, a job that cannot fit, a token without the
 * right): sending it again gets the same answer, unlike a control plane that did not answer.
 */
public final class SchedulerRefused extends SchedulerException {
    private final int status;
    private final String body;

    public SchedulerRefused(String call, int status, String body) {
        super(call + " answered " + status + ": " + body, null);
        this.status = status;
        this.body = body;
    }

    public int status() {
        return status;
    }

    /** What the control plane said, as it said it. */
    public String body() {
        return body;
    }
}
