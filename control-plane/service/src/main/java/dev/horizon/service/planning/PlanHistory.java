package dev.horizon.service.planning;

import dev.horizon.api.JobClass;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import jakarta.inject.Singleton;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each plan left behind, for the web view's chart of utilization and inference demand over time. Kept in memory:
 * it is a view of recent plans, not a record. Plans closer together than a minute share one point (the latest), so
 * a burst of arrivals does not push the day out.
 */
@Singleton
public class PlanHistory {
    /** A day of one plan a minute. */
    static final int MAX_POINTS = 1440;
    private static final long MERGE_SECONDS = 60;

    /** inferenceDemandGpus: GPUs that real-time inference jobs ask for; inferenceServedGpus: those they hold. */
    public record Point(long at, int totalGpus, int busyGpus, double utilization, int pendingJobs, int inferenceDemandGpus,
                        int inferenceServedGpus) {
    }

    private final Deque<Point> points = new ArrayDeque<>();

    /** Each active job's state once the plan's writes are in. */
    static Map<String, JobState> statesAfter(List<JobRow> active, List<JobStore.PlanWrite> writes) {
        Map<String, JobState> after = new HashMap<>();
        active.forEach(j -> after.put(j.id(), j.state()));
        writes.forEach(w -> after.put(w.before().id(), w.state()));
        return after;
    }

    synchronized void record(Planner.PlanSnapshot plan, List<JobRow> active, List<JobStore.PlanWrite> writes) {
        Map<String, JobState> after = statesAfter(active, writes);
        int pending = 0, demand = 0, served = 0;
        for (JobRow j : active) {
            JobState state = after.get(j.id());
            if (state == JobState.PENDING) pending++;
            if (j.jobClass() != JobClass.REALTIME_INFERENCE) continue;
            demand += j.gpus();
            if (state == JobState.RUNNING) served += j.gpus();
        }
        Point p = new Point(plan.now(), plan.totalGpus(), plan.busyGpus(), plan.totalGpus() == 0 ? 0 : (double) plan.busyGpus() / plan.totalGpus(),
                pending, demand, served);
        if (!points.isEmpty() && p.at() - points.peekLast().at() < MERGE_SECONDS) points.pollLast();
        points.addLast(p);
        if (points.size() > MAX_POINTS) points.pollFirst();
    }

    public synchronized List<Point> points() {
        return new ArrayList<>(points);
    }
}
