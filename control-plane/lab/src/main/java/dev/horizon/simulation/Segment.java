package dev.horizon.simulation;

import dev.horizon.api.JobClass;

/**
 * One run of a job on GPUs from start to end (a preempted job has several). keptSeconds is the part
 * that counts as output: all of it when finished or still running at the window's end, less the
 * checkpoint cost when preempted and resumable, none when preempted and not resumable.
 * A job that never started has start and end of -1. gpus is what the job asked for on the GPUs it ran on, a slice counted
 * by its size (a 3g.40gb is 3/7): what it is credited and charged for, whatever the policy gave it. heldGpus is what
 * the placement occupied: the same, except where a policy that cannot share put a slice on a whole GPU (it holds 1).
 */
public record Segment(String jobId, JobClass jobClass, String team, double weight, long arrivalSeconds,
                      long startSeconds, long endSeconds, double gpus, double heldGpus, String nodes, long keptSeconds, boolean fill) {
    public boolean started() {
        return startSeconds >= 0;
    }
}
