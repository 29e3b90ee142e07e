package dev.horizon.service.plans;

/**
 * Asks the planner for a plan: what jobs, nodes, agents and inference need from planning when something changed (an
 * arrival, a cancel, a node or GPU change). The planner implements it, so those packages do not depend on planning.
 */
public interface PlanRequests {
    /** A plan soon; requests inside the planner's debounce window are answered by one plan. */
    void requestPlan();
}
