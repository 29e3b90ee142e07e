package dev.horizon.api.scheduler;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Fencing for adapters: remembers the highest control-plane leader epoch seen on a placement and withholds any placement
 * from an older epoch, so an adapter never starts (unsuspends) a workload on the word of a deposed leader. A withheld
 * job reads as running without a placement, which the adapters already treat as "not placed yet": they keep its
 * workload suspended. The control plane's new leader confirms every placement it keeps under its own epoch in its first
 * commit, so current placements are never withheld.
 */
public final class LeaderEpochFence {
    private static final System.Logger LOG = System.getLogger(LeaderEpochFence.class.getName());

    private final AtomicLong highest = new AtomicLong();

    /** The job as an adapter may act on it. */
    public SchedulerJob admit(SchedulerJob job) {
        if (job.placement() == null) return job;
        long seen = highest.accumulateAndGet(job.leaderEpoch(), Math::max);
        if (job.leaderEpoch() >= seen) return job;
        LOG.log(System.Logger.Level.WARNING, "job {0}: ignoring its placement on {1} from control-plane leader epoch {2}, older than epoch {3}"
                + " already seen; a deposed leader placed it, so its workload stays suspended", job.id(), job.placement().nodes(), job.leaderEpoch(), seen);
        return new SchedulerJob(job.id(), job.state(), null, job.leaderEpoch());
    }

    /** The highest leader epoch seen so far. */
    public long highest() {
        return highest.get();
    }
}
