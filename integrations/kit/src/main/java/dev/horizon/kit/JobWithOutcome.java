package dev.horizon.kit;

import java.util.Optional;

/**
 * Optional extra for a {@link JobIntegration} whose own status says when it ended, so its GPUs go
 * back to the plan as soon as it is done rather than when its estimate runs out.
 */
public interface JobWithOutcome {
    /** Empty while the workload runs; true when it succeeded, false when it failed. */
    Optional<Boolean> succeeded();
}
