package dev.horizon.allocator.moment;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.fairshare.Entitlements;
import dev.horizon.fairshare.FairShareView;
import dev.horizon.fairshare.TeamUsage;
import dev.horizon.forecast.DemandForecaster;
import dev.horizon.forecast.DurationEstimator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one function from a {@link ClusterMoment} to the {@link PlanningContext} every policy plans on. Every rule that
 * turns what the cluster knows into what a planner sees lives here, for the simulator and the control plane alike:
 * which GPUs are busy and where nothing new may land, how long each job is estimated to run still (from the learned
 * durations and the work it has done), what fair share owes each team now and how each was served over the window,
 * and each service's forecast.
 */
public final class ContextBuilder {
    /** No estimate is shorter than a minute: a job the estimator thinks done is about to end, not already gone. */
    public static final long MIN_ESTIMATE_SECONDS = 60;
    /** Forecasts look back over a week of the same slot of the day. */
    public static final int FORECAST_LOOKBACK_DAYS = 7;

    private ContextBuilder() {
    }

    public static PlanningContext build(ClusterMoment m) {
        Cluster cluster = new Cluster(m.nodes().stream().map(NodeState::node).toList());
        Occupancy occupancy = occupancy(m, cluster);
        List<RunningJob> running = running(m);
        List<PendingJob> pending = new ArrayList<>();
        for (ActiveJob j : m.jobs()) if (!j.isRunning()) pending.add(pending(j, m.durations(), m.horizonSteps() * m.stepSeconds()));
        return new PlanningContext(m.now(), m.stepSeconds(), m.horizonSteps(), cluster, occupancy, running, pending, services(m),
                fairShare(m, cluster));
    }

    /**
     * What is busy: MIG layouts and re-partitionings first (they need idle GPUs), the running jobs' and the inference
     * replicas' GPUs, lost GPUs; then nodes that are drained, unhealthy or have lost a GPU take no new work (what runs
     * there was placed before, so it is counted first).
     */
    static Occupancy occupancy(ClusterMoment m, Cluster cluster) {
        Occupancy o = new Occupancy(cluster);
        for (int n = 0; n < m.nodes().size(); n++) {
            NodeState node = m.nodes().get(n);
            o.setMigPolicy(n, node.migPolicy());
            if (node.sharingPerNode() != null) o.setSharingPerNode(n, node.sharingPerNode());
            for (int g = 0; g < node.gpus().size(); g++) {
                NodeState.Gpu gpu = node.gpus().get(g);
                if (gpu.layout() != null) o.setMigLayout(n, g, gpu.layout());
                if (gpu.changingTo() != null) o.markReconfiguring(n, g, gpu.changingTo());
            }
        }
        for (ActiveJob j : m.jobs()) if (j.isRunning()) occupy(o, j.running().placement(), "job " + j.id());
        for (ServiceState s : m.services()) for (Placement p : s.held()) occupy(o, p, "inference service " + s.service().name());
        for (int n = 0; n < m.nodes().size(); n++) {
            List<NodeState.Gpu> gpus = m.nodes().get(n).gpus();
            for (int g = 0; g < gpus.size(); g++) {
                Placement one = new Placement(List.of(new Placement.Slice(n, g, 1)));
                if (gpus.get(g).lost() && o.isFree(one)) o.occupy(one);
            }
            if (!m.nodes().get(n).takesNewWork()) o.drain(n);
        }
        return o;
    }

    private static void occupy(Occupancy o, Placement p, String who) {
        if (!o.isFree(p)) throw new IllegalArgumentException(who + " holds GPUs that are already busy or do not exist: " + p.describe(o.cluster()));
        o.occupy(p);
    }

    /**
     * Running jobs with their estimated end: the work the estimator expects (its duration at full width) minus the work
     * done before this run, spread over the GPUs it holds now; then {@link DurationEstimator#remaining} for the time it
     * has run. The engine's order is kept.
     */
    public static List<RunningJob> running(ClusterMoment m) {
        List<RunningJob> out = new ArrayList<>();
        for (ActiveJob j : m.jobs()) {
            if (!j.isRunning()) continue;
            ActiveJob.Running r = j.running();
            int g = r.placement().gpuCount();
            long estimatedWork = estimate(j, m.durations()) * j.gpus() - j.history().doneGpuSeconds();
            long segmentEstimate = Math.max(MIN_ESTIMATE_SECONDS, estimatedWork / g);
            long left = DurationEstimator.remaining(segmentEstimate, m.now() - r.startSeconds(), MIN_ESTIMATE_SECONDS);
            out.add(new RunningJob(j.id(), j.team(), j.jobClass(), j.priority(), g, j.arrivalSeconds(), r.startSeconds(), m.now() + left,
                    j.contract(), r.placement(), r.fill(), j.rules()));
        }
        return out;
    }

    /**
     * A waiting job with its estimated and expected remaining runs at full width (the median's and the mean's up to the
     * horizon), each less the work it kept from earlier runs.
     */
    private static PendingJob pending(ActiveJob j, DurationEstimator durations, long horizonSeconds) {
        long done = j.history().doneGpuSeconds() / j.gpus();
        long left = Math.max(MIN_ESTIMATE_SECONDS, estimate(j, durations) - done);
        long expected = Math.max(MIN_ESTIMATE_SECONDS, durations.expectedUpTo(j.team(), j.jobClass(), j.userEstimateSeconds(), horizonSeconds) - done);
        return PendingJob.builder().id(j.id()).team(j.team()).jobClass(j.jobClass()).weight(j.priority()).gpus(j.gpus()).minGpus(j.minGpus())
                .arrivalSeconds(j.arrivalSeconds()).estimatedRemainingSeconds(left).expectedRemainingSeconds(expected).contract(j.contract()).slice(j.slice()).rules(j.rules())
                .build();
    }

    private static long estimate(ActiveJob j, DurationEstimator durations) {
        return durations.estimate(j.team(), j.jobClass(), j.userEstimateSeconds());
    }

    /** Each service as policies see it, by name: what it holds, its reservation, its forecast over the horizon, its demand so far. */
    public static Map<String, PlanningContext.ServiceView> services(ClusterMoment m) {
        int stepsPerDay = (int) Math.max(1, 86_400 / m.stepSeconds());
        Map<String, PlanningContext.ServiceView> out = new TreeMap<>();
        for (ServiceState s : m.services()) {
            DemandForecaster forecaster = new DemandForecaster(stepsPerDay, FORECAST_LOOKBACK_DAYS);
            for (double d : s.observedSteps()) forecaster.observe(d);
            out.put(s.service().name(), new PlanningContext.ServiceView(s.service(), s.heldGpus(), s.reservedGpus(),
                    forecaster.forecast(m.horizonSteps()), s.historicalPeakGpus(), s.observedMinutes()));
        }
        return out;
    }

    /**
     * Fair share now: each team is owed its budget's part of the GPUs inference does not hold, capped at what its jobs
     * ask for (running ones at full width, waiting ones), and ranked by how it was served over the window.
     */
    static FairShareView fairShare(ClusterMoment m, Cluster cluster) {
        if (m.teams() == null) return null;
        Map<String, Double> asked = new HashMap<>();
        for (ActiveJob j : m.jobs()) asked.merge(j.team(), j.gpuFraction(), Double::sum);
        int inference = m.services().stream().mapToInt(ServiceState::heldGpus).sum();
        Map<String, Double> owedNow = Entitlements.owed(m.teams().tree(), cluster.totalGpus() - inference, asked);
        Map<String, Double> ratio = new LinkedHashMap<>();
        for (String team : m.teams().tree().teams()) ratio.put(team, m.teams().window().getOrDefault(team, TeamUsage.NONE).ratio());
        return new FairShareView(m.teams().tree(), owedNow, ratio);
    }
}
