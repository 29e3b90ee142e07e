package dev.horizon.service.eta;

import dev.horizon.allocator.eta.Ahead;
import dev.horizon.allocator.eta.Alternatives;
import dev.horizon.service.jobs.StartOutlook;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/** The job views' {@link StartOutlook}: bands from {@link StartTimes}, alternatives and who is ahead from {@link WhatWouldHelp}. */
@ApplicationScoped
public class Outlooks implements StartOutlook {
    @Inject
    StartTimes bands;
    @Inject
    WhatWouldHelp help;

    @Override
    public Band band(String jobId) {
        StartTimes.Snapshot s = bands.latest();
        StartTimes.Shown shown = s.byJob().get(jobId);
        return shown == null ? null : new Band(shown.p50At(), shown.p90At(), s.bandsAt());
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
