package dev.horizon.service.planning;

import dev.horizon.service.fractional.SlicePlanning;
import dev.horizon.service.jobs.JobStore;
import java.util.List;

/**
 * Everything one plan writes, committed in one transaction under the lease: the job rows whose planning fields changed
 * (with their run segments), the agent commands the decision needs, and the fair-share booking.
 */
record PlanCommit(List<JobStore.PlanWrite> writes, List<SlicePlanning.Wanted> commands, PlanInput.Booking booking) {
    /** Only the rows that differ from the store: a plan with nothing new for a job writes nothing for it. */
    PlanCommit {
        writes = writes.stream().filter(JobStore.PlanWrite::changes).toList();
    }
}
