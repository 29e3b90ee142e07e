package dev.horizon.simulation;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fractional.mig.MigPolicy;
import java.util.List;
import java.util.Map;

/**
 * Everything one simulated run needs. Time 0 is the window's start; jobs arrive inside the window.
 * historyJobs are jobs finished before the window, which the duration estimator may learn from.
 * budgets: the fair-share tree (null when the scenario has none; job weights are then their value).
 * migPolicy: the MIG policy of every node (null: GPUs stay unpartitioned and MIG work cannot run).
 * drains: nodes that turn unhealthy during the window (no new work lands there from then on).
 * startLayouts: MIG layouts GPUs have when the window starts (none: every GPU starts unpartitioned).
 * priorArrivals: jobs submitted over the day before the window (arrivals below 0), drawn as the window's jobs are: what a
 * control plane running before the window saw arrive. None of them runs in the window; the start-time bands' model of
 * expected arrivals reads them, as the service reads the last day of submissions from its store.
 */
public record Scenario(String name, Cluster cluster, long stepSeconds, int windowSteps, int horizonSteps,
                       List<SimJob> jobs, List<ServiceDemand> services, List<SimJob> historyJobs,
                       Map<String, Object> description, BudgetTree budgets, MigPolicy migPolicy, List<NodeDrain> drains,
                       List<SimJob> priorArrivals, List<StartLayout> startLayouts) {

    public Scenario {
        startLayouts = startLayouts == null ? List.of() : List.copyOf(startLayouts);
        for (SimJob j : priorArrivals) {
            if (j.arrivalSeconds() >= 0) throw new IllegalArgumentException("prior arrival " + j.id() + " arrives at " + j.arrivalSeconds()
                    + " s: prior arrivals come before the window (below 0)");
        }
    }

    public Scenario(String name, Cluster cluster, long stepSeconds, int windowSteps, int horizonSteps, List<SimJob> jobs,
                    List<ServiceDemand> services, List<SimJob> historyJobs, Map<String, Object> description, BudgetTree budgets,
                    MigPolicy migPolicy, List<NodeDrain> drains, List<SimJob> priorArrivals) {
        this(name, cluster, stepSeconds, windowSteps, horizonSteps, jobs, services, historyJobs, description, budgets, migPolicy, drains,
                priorArrivals, List.of());
    }

    /**
     * GPU gpu of node (index in the cluster) starts the window partitioned to layout, as an operator set it up: a policy
     * that cannot re-partition MIG keeps it all window.
     */
    public record StartLayout(int node, int gpu, MigLayout layout) {
    }

    public Scenario(String name, Cluster cluster, long stepSeconds, int windowSteps, int horizonSteps, List<SimJob> jobs,
                    List<ServiceDemand> services, List<SimJob> historyJobs, Map<String, Object> description, BudgetTree budgets,
                    MigPolicy migPolicy, List<NodeDrain> drains) {
        this(name, cluster, stepSeconds, windowSteps, horizonSteps, jobs, services, historyJobs, description, budgets, migPolicy, drains, List.of());
    }

    /** Node (index in the cluster) drained from atSeconds on. */
    public record NodeDrain(int node, long atSeconds) {
    }

    public Scenario(String name, Cluster cluster, long stepSeconds, int windowSteps, int horizonSteps, List<SimJob> jobs,
                    List<ServiceDemand> services, List<SimJob> historyJobs, Map<String, Object> description, BudgetTree budgets,
                    MigPolicy migPolicy) {
        this(name, cluster, stepSeconds, windowSteps, horizonSteps, jobs, services, historyJobs, description, budgets, migPolicy, List.of());
    }

    public Scenario(String name, Cluster cluster, long stepSeconds, int windowSteps, int horizonSteps, List<SimJob> jobs,
                    List<ServiceDemand> services, List<SimJob> historyJobs, Map<String, Object> description, BudgetTree budgets) {
        this(name, cluster, stepSeconds, windowSteps, horizonSteps, jobs, services, historyJobs, description, budgets, null);
    }

    public Scenario(String name, Cluster cluster, long stepSeconds, int windowSteps, int horizonSteps, List<SimJob> jobs,
                    List<ServiceDemand> services, List<SimJob> historyJobs, Map<String, Object> description) {
        this(name, cluster, stepSeconds, windowSteps, horizonSteps, jobs, services, historyJobs, description, null);
    }

    public long windowSeconds() {
        return stepSeconds * windowSteps;
    }

    /**
     * The same window with every job's arrival moved by up to maxShiftSeconds either way (uniform, drawn from seed alone,
     * kept inside the window): a repeat that one decision's luck cannot carry. Seed 0 is the window as it is.
     */
    public Scenario withArrivalJitter(long seed, long maxShiftSeconds) {
        if (seed == 0) return this;
        java.util.Random rng = new java.util.Random(seed);
        List<SimJob> moved = new java.util.ArrayList<>(jobs.size());
        for (SimJob j : jobs) {
            long shift = (long) Math.floor((rng.nextDouble() * 2 - 1) * maxShiftSeconds);
            moved.add(j.arrivingAt(Math.max(0, Math.min(windowSeconds() - 1, j.arrivalSeconds() + shift))));
        }
        return new Scenario(name, cluster, stepSeconds, windowSteps, horizonSteps, moved, services, historyJobs, description, budgets, migPolicy,
                drains, priorArrivals, startLayouts);
    }

    /** The same window under other budgets, described as given. */
    public Scenario withBudgets(BudgetTree otherBudgets, Map<String, Object> otherDescription) {
        return new Scenario(name, cluster, stepSeconds, windowSteps, horizonSteps, jobs, services, historyJobs, otherDescription, otherBudgets,
                migPolicy, drains, priorArrivals, startLayouts);
    }

    /** Minutes in the window: inference is scored per minute. */
    public int windowMinutes() {
        return (int) (windowSeconds() / ServiceDemand.SECONDS_PER_MINUTE);
    }
}
