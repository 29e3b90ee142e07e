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
    /**
     * A waiting job's band as shown now: by when it starts with odds 1 in 2 and 9 in 10 (epoch seconds, never before now;
     * null: none can be given, and note says why), computed for the plan at bandsAt (null: of no plan); note: what else to know of it (null:
     * nothing). Where the band has no P90: queueAloneP50At and queueAloneP90At, by when the queue as it stands would start
     * it with those odds were no more work to arrive (never before now; null: not told, or not within the futures played;
     * the note says which), a condition and not the band.
     */
    record Band(Long p50At, Long p90At, Long bandsAt, String note, Long queueAloneP50At, Long queueAloneP90At) {
        public Band(Long p50At, Long p90At, Long bandsAt, String note) {
            this(p50At, p90At, bandsAt, note, null, null);
        }
    }

    /**
     * The job's band from the latest bands computed, as shown at now (the caller's one reading of the control plane's clock,
     * which it reports beside the band; a band whose time passed is read again, and fresh bands asked for); null when no
     * bands are computed. plannedStart: the latest plan's start for it (null: none), which the note explains when it falls
     * outside the band.
     */
    Band band(String jobId, Long plannedStart, long now);

    /**
     * {@link #band(String, Long, long)} of a waiting job as stored: a held job has none, as no plan places it (a band
     * computed before its hold would pass unmet and be read again, for nothing), and the note says so.
     */
    default Band band(JobRow j, long now) {
        return j.hold() == null ? band(j.id(), j.plannedStart(), now) : new Band(null, null, null, Hold.bandNote(j.hold().at()));
    }

    /** Up to {@link Alternatives#MAX} changes that would start the waiting job sooner on the latest plan's moment; re-plans, so costly. */
    List<Alternatives.Alternative> alternatives(String jobId);

    /** Who goes before the waiting job on the GPUs it could use, on the latest plan, at most {@link Ahead#MAX}. */
    List<Ahead.Entry> ahead(String jobId);
}
