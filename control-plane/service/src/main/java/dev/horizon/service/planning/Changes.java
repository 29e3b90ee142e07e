package dev.horizon.service.planning;

import dev.horizon.api.Contract;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore.PlanWrite;
import dev.horizon.service.jobs.RunSegments;
import dev.horizon.service.jobs.WaitReasons;
import java.time.Instant;
import java.util.List;

/** The job rows a plan writes: each is what the row's planning fields become, written only where they differ from the store. */
final class Changes {
    private Changes() {
    }

    static PlanWrite start(JobRow j, String placement, boolean fill, long now, List<RunSegments.Opening> openings) {
        return new PlanWrite(j, JobState.RUNNING, placement, fill, now, null, null, null, null, j.lastPreemption(), j.doneGpuSeconds(), null, openings);
    }

    static PlanWrite promoted(JobRow j) {
        return new PlanWrite(j, JobState.RUNNING, j.placement(), false, j.startedAt(), null, null, null, null, j.lastPreemption(), j.doneGpuSeconds(),
                null, List.of());
    }

    /** reason: what the rule that preempted it said (null: nothing beyond that its contract allowed it). */
    static PlanWrite preempted(JobRow j, Contract contract, long now, String reason) {
        String why = "preempted at " + Instant.ofEpochSecond(now) + " " + (reason != null ? reason
                : "for higher-value work") + "; its contract allowed it (past its minimum runtime, or running as fill)";
        return takenOff(j, contract, now, "preempted", why, why, RunSegments.PREEMPTED);
    }

    /** Taken off GPUs it can no longer hold; endReason says by what: NODE_LOST (node or GPU gone) or EVICTED (GPUs taken). */
    static PlanWrite displaced(JobRow j, Contract contract, long now, String why, String endReason) {
        boolean lost = RunSegments.NODE_LOST.equals(endReason);
        return takenOff(j, contract, now, lost ? "node-lost" : "evicted", "taken off its GPUs because " + why + "; it waits to be placed again",
                (lost ? "node lost: " : "evicted: ") + why, endReason);
    }

    static PlanWrite waiting(JobRow j, String rule, String reason, Integer rank, Long plannedStart) {
        return new PlanWrite(j, JobState.PENDING, null, false, null, rule, WaitReasons.stored(reason), rank, plannedStart, j.lastPreemption(),
                j.doneGpuSeconds(), null, List.of());
    }

    private static PlanWrite takenOff(JobRow j, Contract contract, long now, String rule, String reason, String preemption, String endReason) {
        return new PlanWrite(j, JobState.PENDING, null, false, null, rule, reason, null, null, preemption, j.doneIfTakenOff(contract, now), endReason,
                List.of());
    }
}
