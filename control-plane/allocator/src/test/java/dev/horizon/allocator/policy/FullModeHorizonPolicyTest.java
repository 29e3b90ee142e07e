package dev.horizon.allocator.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.plan.HeuristicPlanner;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Full mode plans with its planner once every period, as the control plane's background full mode does; the heuristic in between. */
class FullModeHorizonPolicyTest {
    @Test
    void fullModeRunsOnceAPeriod() {
        List<Long> fullAt = new ArrayList<>();
        HeuristicPlanner heuristic = new HeuristicPlanner();
        long[] now = {0};
        FullModeHorizonPolicy policy = new FullModeHorizonPolicy("full", p -> {
            fullAt.add(now[0]);
            return heuristic.plan(p);
        }, 300);
        Cluster cluster = Cluster.homogeneous(8, 8, "H100-80GB", 81_559);
        for (long t : new long[] {0, 60, 299, 300, 450, 700}) {
            now[0] = t;
            PendingJob j = PendingJob.builder().id("j" + t).team("t").jobClass(JobClass.TRAINING).weight(1).gpus(16).arrivalSeconds(t)
                    .estimatedRemainingSeconds(3600).contract(Contract.defaultFor(JobClass.TRAINING)).build();
            policy.decide(new PlanningContext(t, 900, 8, cluster, new Occupancy(cluster), List.of(), List.of(j), Map.of()));
        }
        assertEquals(List.of(0L, 300L, 700L), fullAt);
    }
}
