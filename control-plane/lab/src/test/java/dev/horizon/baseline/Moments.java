package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.List;
import java.util.Map;

/** Small planning moments for the baselines' tests: running jobs placed by hand, waiting jobs, no inference. */
final class Moments {
    static final Contract HALF_HOUR = new Contract(1800, true, 60);

    private Moments() {
    }

    static RunningJob running(String id, String team, double weight, int node, int first, int gpus, long start, long end) {
        return new RunningJob(id, team, JobClass.TRAINING, weight, gpus, 0, start, end, HALF_HOUR,
                new Placement(List.of(new Placement.Slice(node, first, gpus))), false);
    }

    static PendingJob waiting(String id, String team, double weight, int gpus, long estimate) {
        return PendingJob.builder().id(id).team(team).jobClass(JobClass.TRAINING).weight(weight).gpus(gpus).estimatedRemainingSeconds(estimate)
                .contract(HALF_HOUR).build();
    }

    static PlanningContext at(long now, Cluster cluster, List<RunningJob> running, List<PendingJob> pending) {
        Occupancy o = new Occupancy(cluster);
        running.forEach(r -> o.occupy(r.placement()));
        return new PlanningContext(now, 900, 96, cluster, o, running, pending, Map.of());
    }
}
