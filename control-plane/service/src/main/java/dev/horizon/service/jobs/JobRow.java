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
 * memory one of its whole GPUs held while it ran, as its agents reported it (0: never measured); hold who held it, waiting,
 * and since when (null: not held).
 */
public record JobRow(String id, String name, String team, JobClass jobClass, int priority, int gpus, int minGpus, String spec,
                     JobState state, long submittedAt, Long startedAt, Long endedAt, String placement, boolean fill, String rule,
                     String reason, Integer queueRank, Long plannedStart, int preemptions,
                     String lastPreemption, long leaderEpoch, long doneGpuSeconds, long peakGpuMemoryMiB, Hold hold) {

    /**
     * The work it keeps when its run ends now before it is done, as the simulator counts it: a resumable job keeps all of
     * this run but its checkpoint cost; one that cannot resume starts over.
     */
    public long doneIfTakenOff(Contract contract, long now) {
        if (!contract.resumable()) return 0;
        long ran = startedAt == null ? 0 : Math.max(0, now - startedAt);
        return doneGpuSeconds + contract.keptWork(ran) * (placement == null ? 0 : Placements.gpuCount(placement));
    }

    /** A row built by naming what it sets; the rest is null, 0 or false: not started, never placed, nothing done. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a JobRow field by field, so that a call site says which of the 24 it sets. */
    public static final class Builder {
        private String id;
        private String name;
        private String team;
        private JobClass jobClass;
        private int priority;
        private int gpus;
        private int minGpus;
        private String spec;
        private JobState state;
        private long submittedAt;
        private Long startedAt;
        private Long endedAt;
        private String placement;
        private boolean fill;
        private String rule;
        private String reason;
        private Integer queueRank;
        private Long plannedStart;
        private int preemptions;
        private String lastPreemption;
        private long leaderEpoch;
        private long doneGpuSeconds;
        private long peakGpuMemoryMiB;
        private Hold hold;

        private Builder() {
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder team(String team) {
            this.team = team;
            return this;
        }

        public Builder jobClass(JobClass jobClass) {
            this.jobClass = jobClass;
            return this;
        }

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public Builder gpus(int gpus) {
            this.gpus = gpus;
            return this;
        }

        public Builder minGpus(int minGpus) {
            this.minGpus = minGpus;
            return this;
        }

        public Builder spec(String spec) {
            this.spec = spec;
            return this;
        }

        public Builder state(JobState state) {
            this.state = state;
            return this;
        }

        public Builder submittedAt(long submittedAt) {
            this.submittedAt = submittedAt;
            return this;
        }

        public Builder startedAt(Long startedAt) {
            this.startedAt = startedAt;
            return this;
        }

        public Builder endedAt(Long endedAt) {
            this.endedAt = endedAt;
            return this;
        }

        public Builder placement(String placement) {
            this.placement = placement;
            return this;
        }

        public Builder fill(boolean fill) {
            this.fill = fill;
            return this;
        }

        public Builder rule(String rule) {
            this.rule = rule;
            return this;
        }

        public Builder reason(String reason) {
            this.reason = reason;
            return this;
        }

        public Builder queueRank(Integer queueRank) {
            this.queueRank = queueRank;
            return this;
        }

        public Builder plannedStart(Long plannedStart) {
            this.plannedStart = plannedStart;
            return this;
        }

        public Builder preemptions(int preemptions) {
            this.preemptions = preemptions;
            return this;
        }

        public Builder lastPreemption(String lastPreemption) {
            this.lastPreemption = lastPreemption;
            return this;
        }

        public Builder leaderEpoch(long leaderEpoch) {
            this.leaderEpoch = leaderEpoch;
            return this;
        }

        public Builder doneGpuSeconds(long doneGpuSeconds) {
            this.doneGpuSeconds = doneGpuSeconds;
            return this;
        }

        public Builder peakGpuMemoryMiB(long peakGpuMemoryMiB) {
            this.peakGpuMemoryMiB = peakGpuMemoryMiB;
            return this;
        }

        public Builder hold(Hold hold) {
            this.hold = hold;
            return this;
        }

        public JobRow build() {
            return new JobRow(id, name, team, jobClass, priority, gpus, minGpus, spec, state, submittedAt, startedAt, endedAt, placement, fill, rule,
                    reason, queueRank, plannedStart, preemptions, lastPreemption, leaderEpoch, doneGpuSeconds, peakGpuMemoryMiB, hold);
        }
    }
}
