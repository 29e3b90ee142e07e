package dev.horizon.service.fractional;

import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.service.jobs.JobRow;

/**
 * A job's size in GPUs for quota and fair share. The rule: whole GPUs count as they are; a MIG instance counts its
 * compute slices of 7 (a 1g.10gb on an H100 is 1/7 of a GPU, not the 1/8 its memory slice would say: compute is what
 * the instance keeps from others); a time-slicing share counts its milli-GPU / 1000.
 */
public final class JobGpus {
    private JobGpus() {
    }

    public static double of(JobRow j) {
        // only a fractional shape names these fields, so whole-GPU rows skip the parse
        if (j.spec() == null || !(j.spec().contains("\"migProfile\"") || j.spec().contains("\"gpuMilli\""))) return j.gpus();
        JobSpec spec = JobJson.parse(j.spec());
        if (spec.perReplica() == null || spec.perReplica().gpus() != null) return j.gpus();
        return spec.replicaCount() * spec.perReplica().gpuFraction();
    }
}
