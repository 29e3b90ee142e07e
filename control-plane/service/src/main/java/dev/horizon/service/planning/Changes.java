package dev.horizon.service.planning;

import dev.horizon.api.Contract;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore.PlanWrite;
import dev.horizon.service.jobs.Placements;
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

    static PlanWrite preempted(JobRow j, Contract contract, long now) {
        String why = "preempted at " + Instant.ofEpochSecond(now)
                + " for higher-value work: its contract allowed it (resumable, past its minimum runtime, or running as fill)";
        return takenOff(j, contract, now, "preempted", why, why, RunSegments.PREEMPTED);
    }

    static PlanWrite displaced(JobRow j, Contract contract, long now, String why) {
        return takenOff(j, contract, now, "node-lost", "taken off its GPUs because " + why + "; it waits to be placed again", "node lost: " + why,
                RunSegments.NODE_LOST);
    }

    static PlanWrite waiting(JobRow j, String rule, String reason, Integer rank, Long plannedStart) {
        return new PlanWrite(j, JobState.PENDING, null, false, null, rule, WaitReasons.stored(reason), rank, plannedStart, j.lastPreemption(),
                j.doneGpuSeconds(), null, List.of());
    }

    /**
     * A run that ends before its work is done keeps what its checkpoints saved, as the simulator counts it: a resumable job
     * keeps all but its checkpoint cost; one that cannot resume starts over.
     */
    private static PlanWrite takenOff(JobRow j, Contract contract, long now, String rule, String reason, String preemption, String endReason) {
        long ran = j.startedAt() == null ? 0 : Math.max(0, now - j.startedAt());
        long kept = Math.max(0, ran - contract.checkpointCostSeconds()) * (j.placement() == null ? 0 : Placements.gpuCount(j.placement()));
        long done = contract.resumable() ? j.doneGpuSeconds() + kept : 0;
        return new PlanWrite(j, JobState.PENDING, null, false, null, rule, reason, null, null, preemption, done, endReason, List.of());
    }
}
