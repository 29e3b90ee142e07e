package dev.horizon.service.planning;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.moment.ClusterMoment;

/**
 * A hot-path plan just committed: the moment it was made on, the context the policy got (its occupancy is the policy's
 * scratch copy: only its jobs, services and fair share may be read), its decision, and its time (epoch seconds). Fired
 * to observers on the planner's thread, so they must only take the reference and return; none of it changes after the
 * commit (the moment and its parts are immutable data, built afresh for each plan). nodesOut: the registered nodes out of
 * the moment (lost, or awaiting approval), which a job only they can hold is told of.
 */
public record PlannedMoment(ClusterMoment moment, PlanningContext context, Decision decision, long now, NodesOut nodesOut) {
}
