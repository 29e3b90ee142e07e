package dev.horizon.allocator;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.InferenceService;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.fairshare.FairShareView;
import java.util.List;
import java.util.Map;

/**
 * Everything a policy may look at when it decides: the cluster now (a private copy it may change),
 * the running and pending jobs with estimates only, per inference service the GPUs it holds, its
 * forecast over the horizon and the peak seen in its history, and fair share (null without budgets).
 */
public record PlanningContext(long now, long stepSeconds, int horizonSteps, Cluster cluster, Occupancy occupancy,
                              List<RunningJob> running, List<PendingJob> pending,
                              Map<String, ServiceView> services, FairShareView fairShare) {

    public PlanningContext(long now, long stepSeconds, int horizonSteps, Cluster cluster, Occupancy occupancy,
                           List<RunningJob> running, List<PendingJob> pending, Map<String, ServiceView> services) {
        this(now, stepSeconds, horizonSteps, cluster, occupancy, running, pending, services, null);
    }

    /** The same moment with other job views (fair share re-weights them). */
    public PlanningContext withJobs(List<RunningJob> newRunning, List<PendingJob> newPending) {
        return new PlanningContext(now, stepSeconds, horizonSteps, cluster, occupancy, newRunning, newPending, services, fairShare);
    }

    /**
     * One inference service as the planner sees it. forecast[k] is the GPUs needed k steps from now; observedMinutes the
     * demand of each minute already observed, oldest first, the last one the minute that just ended (empty where only
     * per-step demand is known).
     */
    public record ServiceView(InferenceService service, int heldGpus, int reservedGpus, double[] forecast, int historicalPeakGpus,
                              double[] observedMinutes) {
        public ServiceView(InferenceService service, int heldGpus, int reservedGpus, double[] forecast, int historicalPeakGpus) {
            this(service, heldGpus, reservedGpus, forecast, historicalPeakGpus, new double[0]);
        }

        /** The highest demand of the last {@code minutes} minutes observed (0 when none is). */
        public double recentPeak(int minutes) {
            double peak = 0;
            for (int i = Math.max(0, observedMinutes.length - minutes); i < observedMinutes.length; i++) peak = Math.max(peak, observedMinutes[i]);
            return peak;
        }
    }

    /** Index of the step that contains {@code now}. */
    public long stepIndex() {
        return now / stepSeconds;
    }

    /** When plan step s starts, in epoch seconds: a job planned there has that planned start (step 0 is now: its step has begun). */
    public long plannedStart(int s) {
        return Math.max(now, (stepIndex() + s) * stepSeconds);
    }
}
