package dev.horizon.api.manifest;

import dev.horizon.api.JobSpec;
import java.util.List;

/**
 * What one manifest asks of the scheduler: its jobs, and warnings about what the translation read differently from how
 * it is written (a worker count clamped as the operator clamps it, a generateName, a field of an older release) that
 * the user should see: {@code translate} prints them, the controllers record them on the workload.
 */
public record Translation(List<JobSpec> jobs, List<String> warnings) {
    public Translation {
        jobs = List.copyOf(jobs);
        warnings = List.copyOf(warnings);
    }
}
