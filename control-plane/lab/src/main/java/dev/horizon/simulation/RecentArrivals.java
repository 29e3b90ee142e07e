package dev.horizon.simulation;

import dev.horizon.allocator.eta.ExpectedArrivals;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The work that arrived over the last day, as a control plane's store returns it to its start-time bands: the scenario's
 * submissions of the day before the window (without them, the first hours would read as the day's only arrivals), then
 * every job as it was when a decision first saw it waiting; older than a day is dropped, as the service never reads it.
 */
public final class RecentArrivals {
    private final Set<String> seen = new HashSet<>();
    private final List<ActiveJob> arrivals = new ArrayList<>();

    public RecentArrivals(List<SimJob> priorArrivals) {
        for (SimJob j : priorArrivals) {
            seen.add(j.id());
            arrivals.add(new ActiveJob(j.id(), j.team(), j.jobClass(), j.weight(), j.gpus(), j.minGpus(), j.arrivalSeconds(), j.userEstimateSeconds(),
                    j.contract(), j.slice(), j.rules(), ActiveJob.RunHistory.NEW, null));
        }
    }

    /** Remembers the moment's waiting jobs not seen before and forgets what arrived more than a day before it. */
    public void saw(ClusterMoment moment) {
        for (ActiveJob j : moment.jobs()) if (!j.isRunning() && seen.add(j.id())) arrivals.add(j);
        arrivals.removeIf(j -> j.arrivalSeconds() < moment.now() - ExpectedArrivals.WINDOW_SECONDS);
    }

    /** The arrivals remembered, oldest first as they came. */
    public List<ActiveJob> list() {
        return arrivals;
    }

    /** The work expected to arrive after now, read from them as the control plane reads its store's. */
    public ExpectedArrivals expected(long now) {
        return ExpectedArrivals.overTheLastDay(arrivals, now, false);
    }
}
