package dev.horizon.service.jobs;

import dev.horizon.allocator.eta.Ahead;
import dev.horizon.allocator.eta.Alternatives;
import java.util.List;

/**
 * What the latest plan says of a waiting job's start beyond its planned start, for the job views and the explanation:
 * its calibrated band, what would make it start sooner, who goes before it. Computed beside the planning loop (see
 * {@code dev.horizon.service.eta}); this seam keeps the resources free of how.
 */
public interface StartOutlook {
    /** A waiting job's band: by when it starts with odds 1 in 2 and 9 in 10 (epoch seconds; null: beyond the horizon), computed for the plan at bandsAt. */
    record Band(Long p50At, Long p90At, long bandsAt) {
    }

    /** The job's band from the latest bands computed, or null when it has none yet (the first plan after it arrived). */
    Band band(String jobId);

    /** Up to {@link Alternatives#MAX} changes that would start the waiting job sooner on the latest plan's moment; re-plans, so costly. */
    List<Alternatives.Alternative> alternatives(String jobId);

    /** Who goes before the waiting job on the GPUs it could use, on the latest plan, at most {@link Ahead#MAX}. */
    List<Ahead.Entry> ahead(String jobId);
}
