package dev.horizon.service.planning;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.api.JobClass;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.web.ApiTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What a plan left behind, one point of the web view's chart of utilization and inference demand over time. */
public final class PlanHistory {
    private PlanHistory() {
    }

    /**
     * inferenceDemandGpus: GPUs that real-time inference jobs ask for; inferenceServedGpus: those they hold.
     * inferenceHeldGpus: GPUs inference services' replicas held (as their agents report); inferenceReservedGpus: what the
     * plan kept for the services for its step (at least what they held).
     */
    public record Point(@JsonSerialize(using = ApiTime.Seconds.class) long at, int totalGpus, int busyGpus, double utilization, int pendingJobs, int inferenceDemandGpus,
                        int inferenceServedGpus, int inferenceHeldGpus, int inferenceReservedGpus) {
        Point(long at, int totalGpus, int busyGpus, int pendingJobs, int inferenceDemandGpus, int inferenceServedGpus, int inferenceHeldGpus,
              int inferenceReservedGpus) {
            this(at, totalGpus, busyGpus, totalGpus == 0 ? 0 : (double) busyGpus / totalGpus, pendingJobs, inferenceDemandGpus, inferenceServedGpus,
                    inferenceHeldGpus, inferenceReservedGpus);
        }
    }

    /** Each active job's state once the plan's writes are in. */
    static Map<String, JobState> statesAfter(List<JobRow> active, List<JobStore.PlanWrite> writes) {
        Map<String, JobState> after = new HashMap<>();
        active.forEach(j -> after.put(j.id(), j.state()));
        writes.forEach(w -> after.put(w.before().id(), w.state()));
        return after;
    }

    /** The point of a plan: active is what it planned, writes what it changed of them, heldByServices the GPUs services held. */
    static Point of(Planner.PlanSnapshot plan, List<JobRow> active, List<JobStore.PlanWrite> writes, int heldByServices) {
        Map<String, JobState> after = statesAfter(active, writes);
        int pending = 0, demand = 0, served = 0;
        for (JobRow j : active) {
            JobState state = after.get(j.id());
            if (state == JobState.PENDING) pending++;
            if (j.jobClass() != JobClass.REALTIME_INFERENCE) continue;
            demand += j.gpus();
            if (state == JobState.RUNNING) served += j.gpus();
        }
        int reserved = plan.inferenceReservedGpus().values().stream().mapToInt(Integer::intValue).sum();
        return new Point(plan.now(), plan.totalGpus(), plan.busyGpus(), pending, demand, served, heldByServices, reserved);
    }
}
