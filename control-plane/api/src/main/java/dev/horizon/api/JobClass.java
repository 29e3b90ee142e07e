package dev.horizon.api;

/** What kind of work a job is; decides how the allocator treats it. */
public enum JobClass {
    TRAINING, BATCH_INFERENCE, QUANTIZATION, REALTIME_INFERENCE, DEBUG, INTERACTIVE;

    /** Batch-like work holds a contiguous block of GPUs until it is done (Dharma's rule). */
    public boolean batchLike() {
        return this != REALTIME_INFERENCE;
    }
}
