package dev.horizon.service.jobs;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * One job as stored. submittedAt is in epoch milliseconds (it orders jobs submitted within a second);
 * startedAt, endedAt and plannedStart are in epoch seconds, the allocator's unit. placement is "node[first-last]+..." as the allocator describes it; rule and
 * reason say why a pending job waits (or why it went back to pending), queueRank its place in the
 * value order of the last plan, plannedStart when that plan expects it to start (epoch seconds); lastPreemption why it was last
 * taken off its GPUs; leaderEpoch the epoch of the leader that placed it or, for a running job, last confirmed its
 * placement; doneGpuSeconds the work it has done and kept over its runs (see run_segments); peakGpuMemoryMiB the most
 * memory one of its whole GPUs held while it ran, as its agents reported it (0: never measured).
 */
public record JobRow(String id, String name, String team, JobClass jobClass, int priority, int gpus, int minGpus, String spec,
                     JobState state, long submittedAt, Long startedAt, Long endedAt, String placement, boolean fill, String rule,
                     String reason, Integer queueRank, Long plannedStart, int preemptions,
                     String lastPreemption, long leaderEpoch, long doneGpuSeconds, long peakGpuMemoryMiB) {

    /**
     * The work it keeps when its run ends now before it is done, as the simulator counts it: a resumable job keeps all of
     * this run but its checkpoint cost; one that cannot resume starts over.
     */
    public long doneIfTakenOff(Contract contract, long now) {
        if (!contract.resumable()) return 0;
        long ran = startedAt == null ? 0 : Math.max(0, now - startedAt);
        return doneGpuSeconds + contract.keptWork(ran) * (placement == null ? 0 : Placements.gpuCount(placement));
    }
}
