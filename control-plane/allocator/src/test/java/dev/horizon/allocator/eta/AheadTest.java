package dev.horizon.allocator.eta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ContextBuilder;
import dev.horizon.allocator.moment.NodeState;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import dev.horizon.forecast.DurationEstimator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AheadTest {
    private static final long NOW = 36_000;
    private static final Contract TRAINING = Contract.defaultFor(JobClass.TRAINING);
    private static final NodeState H100 = NodeState.ready(new GpuNode("n0", "H100-80GB", 8, 81_559, "a"));
    private static final NodeState A100 = NodeState.ready(new GpuNode("n1", "A100-80GB", 8, 81_920, "b"));

    private static ActiveJob job(String id, String team, double priority, long arrival, Set<String> types, ActiveJob.Running run) {
        return new ActiveJob(id, team, JobClass.TRAINING, priority, 8, 8, arrival, 3600L, TRAINING, null, PlacementRules.ANY.withGpuTypes(types), null, run);
    }

    @Test
    void theRunningJobOnItsModelAndTheHigherPriorityJobQueuedBeforeItAreAhead() {
        ActiveJob runningH = job("rh", "vision", 1, NOW - 700, Set.of("H100-80GB"), new ActiveJob.Running(NOW - 600,
                new Placement(List.of(new Placement.Slice(0, 0, 8))), false));
        ActiveJob runningA = job("ra", "vision", 1, NOW - 700, Set.of("A100-80GB"), new ActiveJob.Running(NOW - 600,
                new Placement(List.of(new Placement.Slice(1, 0, 8))), false));
        ActiveJob urgent = job("u", "nlp", 10, NOW - 30, Set.of("H100-80GB"), null);
        ActiveJob mine = job("w", "vision", 5, NOW - 60, Set.of("H100-80GB"), null);
        ClusterMoment m = new ClusterMoment(NOW, 900, 16, List.of(H100, A100), List.of(runningH, runningA, urgent, mine), null, List.of(),
                new DurationEstimator());
        PlanningContext ctx = ContextBuilder.build(m);
        Decision d = new HorizonPolicy().decide(ContextBuilder.build(m));
        List<Ahead.Entry> ahead = Ahead.of(m, ctx, d, "w");
        assertEquals(List.of("u", "rh"), ahead.stream().map(Ahead.Entry::job).toList(), "not the job on the A100s it cannot use: " + ahead);
        assertEquals("priority 10 over 5", ahead.get(0).reason());
        assertEquals("nlp", ahead.get(0).team());
        assertEquals("running until its estimated end", ahead.get(1).reason());
        long end = ctx.running().stream().filter(r -> r.id().equals("rh")).findFirst().orElseThrow().estimatedEndSeconds();
        assertEquals(Math.max(NOW, end), ahead.get(1).untilAt(), "the running job's estimated end");
        assertEquals(null, ahead.get(0).untilAt(), "a waiting job has no end to say");
        assertTrue(Ahead.of(m, ctx, d, "rh").isEmpty(), "a running job has no one ahead");
    }

    @Test
    void reasonsNameFairShareRankThenSubmissionOrder() {
        ActiveJob mine = job("w", "vision", 1, NOW - 60, Set.of(), null);
        Map<String, Integer> ranks = Map.of("nlp", 1, "vision", 2);
        assertEquals("fair share: team nlp is owed more (rank 1 vs 2)", Ahead.why(mine, job("o", "nlp", 1, NOW, Set.of(), null), ranks));
        assertEquals("submitted earlier", Ahead.why(mine, job("o", "vision", 1, NOW - 120, Set.of(), null), ranks));
        assertEquals("fits the GPUs free sooner", Ahead.why(mine, job("o", "vision", 1, NOW, Set.of(), null), ranks));
    }
}
