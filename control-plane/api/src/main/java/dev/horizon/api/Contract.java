package dev.horizon.api;

import java.util.List;

/**
 * The scheduling contract (Ai2): never preempted during minRuntimeSeconds; a resumable job keeps its
 * progress when preempted, paying checkpointCostSeconds to save it.
 */
public record Contract(long minRuntimeSeconds, boolean resumable, long checkpointCostSeconds) {
    /** Ai2 caps the protected minimum runtime; 8 h is their default cap. */
    public static final long MAX_MIN_RUNTIME_SECONDS = 8 * 3600;

    public static Contract defaultFor(JobClass jobClass) {
        return switch (jobClass) {
            case TRAINING -> new Contract(1800, true, 120);
            case BATCH_INFERENCE -> new Contract(600, true, 30);
            case QUANTIZATION -> new Contract(0, false, 0);
            case REALTIME_INFERENCE, INTERACTIVE -> new Contract(0, false, 0);
            case DEBUG -> new Contract(0, false, 0);
        };
    }

    /**
     * Seconds of a run of ranSeconds that a preemption leaves done (per GPU): a resumable job keeps all of it but the
     * checkpoint it pays for; one that cannot resume keeps nothing and starts over.
     */
    public long keptWork(long ranSeconds) {
        return resumable ? Math.max(0, ranSeconds - checkpointCostSeconds) : 0;
    }

    void validate(List<String> errors) {
        if (minRuntimeSeconds < 0) errors.add("contract.minRuntimeSeconds must be >= 0 (got " + minRuntimeSeconds + ")");
        if (minRuntimeSeconds > MAX_MIN_RUNTIME_SECONDS) {
            errors.add("contract.minRuntimeSeconds is capped at " + MAX_MIN_RUNTIME_SECONDS + " (8 h); got " + minRuntimeSeconds);
        }
        if (checkpointCostSeconds < 0 || checkpointCostSeconds > Limits.CHECKPOINT_COST_SECONDS) {
            errors.add("contract.checkpointCostSeconds must be between 0 and " + Limits.CHECKPOINT_COST_SECONDS + " (a day); got " + checkpointCostSeconds);
        }
    }
}
