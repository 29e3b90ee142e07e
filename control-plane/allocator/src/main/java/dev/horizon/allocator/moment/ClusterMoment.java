package dev.horizon.allocator.moment;

import dev.horizon.forecast.DurationEstimator;
import java.util.List;

/**
 * The cluster at one moment, as much as planning may know of it, in plain data: its nodes (GPU model, NVLink domain,
 * health, MIG layouts), every active job (shape, rules, contract, run history, and where it runs), the team tree with
 * its usage over the fair-share window (null without budgets), the inference services with the demand they have shown,
 * and the durations learned from finished work. The simulator and the control plane each build one from what they hold
 * and call {@link ContextBuilder#build}; nothing else turns a cluster into a {@code PlanningContext}.
 *
 * @param jobs running jobs first, then waiting ones, each in the engine's own order (it sets the order of ties)
 */
public record ClusterMoment(long now, long stepSeconds, int horizonSteps, List<NodeState> nodes, List<ActiveJob> jobs, Teams teams,
                            List<ServiceState> services, DurationEstimator durations) {
    public ClusterMoment {
        nodes = List.copyOf(nodes);
        jobs = List.copyOf(jobs);
        services = List.copyOf(services);
        if (stepSeconds < 1 || horizonSteps < 1) throw new IllegalArgumentException("stepSeconds and horizonSteps must be >= 1");
        if (nodes.isEmpty()) throw new IllegalArgumentException("a moment needs at least one node");
    }
}
