package dev.horizon.service.planning;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.JobSpec;
import dev.horizon.service.fairshare.UsageBooking;
import dev.horizon.service.fractional.SlicePlanning;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.nodes.Node;
import java.util.List;
import java.util.Map;

/**
 * One planning moment as read from the store: the moment (what start-time bands and alternatives re-plan), the context
 * the policy decides on, and what applying its decision needs.
 * world: the occupancy with running work placed, before the decision (the policy gets its own copy in the context);
 * holding: each running job's placement; takenOff: jobs already off their GPUs (node lost, GPU fell off the bus);
 * secondsLeft: per active job its estimated remaining (running) or whole (waiting) run; reserved: per inference service
 * the GPUs the plan keeps for it now; booking: the fair-share time this plan books when it commits; nodesOut: the
 * registered nodes out of the moment (lost, or awaiting approval), which a job only they can hold is told of.
 */
record PlanInput(long now, ClusterMoment moment, List<Node> usable, Cluster cluster, Map<String, JobRow> rows, Map<String, JobSpec> specs, PlanningContext context,
                 Occupancy world, Map<String, Placement> holding, SlicePlanning.Pools pools, List<JobStore.PlanWrite> takenOff,
                 Map<String, Long> secondsLeft, Map<String, Integer> reserved, Booking booking, NodesOut nodesOut) {

    /**
     * What a plan books in the fair-share aggregates: the hourly additions up to bookedUntil, and what each team is owed
     * from then on. NONE books nothing: a plan without nodes leaves the stretch to the next plan that has some.
     */
    record Booking(List<UsageBooking.Hourly> hourly, long bookedUntil, Map<String, Double> owedNext) {
        static final Booking NONE = new Booking(List.of(), -1, Map.of());
    }
}
