package dev.horizon.service.eta;

import dev.horizon.allocator.eta.Ahead;
import dev.horizon.allocator.eta.Alternatives;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.jobs.StartOutlook;
import dev.horizon.service.leadership.Leadership;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The job views' {@link StartOutlook}: bands from {@link StartTimes} on the leader that computes them, from the store
 * on a follower (and on a new leader until its first computation), each read through {@link BandReading} at the
 * moment it is asked for; alternatives and who is ahead from {@link WhatWouldHelp}.
 */
@ApplicationScoped
public class Outlooks implements StartOutlook {
    /** How long a follower shows the bands it read from the store before reading them again: a job list asks per job. */
    static final long STORED_FOR_NANOS = 5_000_000_000L;

    @Inject
    StartTimes bands;
    @Inject
    BandStore stored;
    @Inject
    Leadership leadership;
    @Inject
    WhatWouldHelp help;
    @Inject
    ServiceClock clock;

    private record Read(StartTimes.Snapshot bands, long atNanos) {
    }

    private volatile Read read;

    @Override
    public Band band(String jobId, Long plannedStart, long now) {
        BandReading.Read read = BandReading.read(latest(), jobId, now, plannedStart);
        if (read.stale()) bands.refresh();
        return read.band();
    }

    private StartTimes.Snapshot latest() {
        StartTimes.Snapshot computed = bands.latest();
        if (leadership.leading() && computed.bandsAt() != null) return computed;
        Read r = read;
        if (r == null || System.nanoTime() - r.atNanos() > STORED_FOR_NANOS) {
            r = new Read(stored.load(), System.nanoTime());
            read = r;
        }
        return r.bands();
    }

    @Override
    public List<Alternatives.Alternative> alternatives(String jobId) {
        return help.alternatives(jobId);
    }

    @Override
    public List<Ahead.Entry> ahead(String jobId) {
        return help.ahead(jobId);
    }
}
