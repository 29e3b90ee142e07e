package dev.horizon.allocator.actions.consolidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two small actors share GPU 0 of node a; the rest of node a is free, and node b is full but for room beside a third
 * actor on its GPU 7. An 8-GPU job waits: no preemption frees GPU 0 (neither actor holds the whole GPU), so without
 * consolidation it waits for the actors to end, ten hours out.
 */
class ConsolidateTest {
    private static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(1800, true, 60);
    private static final GpuShare SHARE = GpuShare.timeSlice(300, 20_000);
    private final Cluster cluster = new Cluster(List.of(new GpuNode("a", "H100-80GB", 8, 81_559, "x"),
            new GpuNode("b", "H100-80GB", 8, 81_559, "x")));

    private static RunningJob actor(String id, int node, int gpu, GpuShare share, long started) {
        Placement p = new Placement(List.of(new Placement.Slice(node, gpu, 1, share)));
        return new RunningJob(id, "t", JobClass.BATCH_INFERENCE, 1, 1, 0, started, NOW + 36_000, RESUMABLE, p, false);
    }

    private static PendingJob wide() {
        return PendingJob.builder().id("wide").team("t").jobClass(JobClass.TRAINING).weight(4).gpus(8).arrivalSeconds(NOW - 600)
                .estimatedRemainingSeconds(7200).contract(RESUMABLE).build();
    }

    /** Node b's GPUs 0-6 run weight-8 work for two more hours; its GPU 7 holds an actor of thirdShare. */
    private Decision decide(long secondActorStarted, GpuShare thirdShare) {
        Occupancy o = new Occupancy(cluster);
        Placement trainer = new Placement(List.of(new Placement.Slice(1, 0, 7)));
        List<RunningJob> running = new ArrayList<>(List.of(
                new RunningJob("trainer", "t", JobClass.TRAINING, 8, 7, 0, NOW - 600, NOW + 7200, RESUMABLE, trainer, false),
                actor("actor-a", 0, 0, SHARE, NOW - 7200), actor("actor-b", 0, 0, SHARE, secondActorStarted),
                actor("actor-c", 1, 7, thirdShare, NOW - 7200)));
        for (RunningJob r : running) o.occupy(r.placement());
        return new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(wide()), Map.of()));
    }

    @Test
    void sharesMoveBesideOtherSharesSoAWaitingJobGetsTheWholeNode() {
        Decision d = decide(NOW - 7200, SHARE);
        assertEquals(Set.of("actor-a", "actor-b"), Set.copyOf(d.preemptions()), d.waitReasons().toString());
        assertEquals(List.of("wide"), d.starts().stream().map(Decision.Start::jobId).toList());
        assertEquals(List.of(new Placement.Slice(0, 0, 8)), d.starts().get(0).placement().slices());
        String why = d.preemptionReasons().get("actor-a");
        assertTrue(why.contains("moved to free whole GPUs for wide") && why.contains("fits at once on b[7:300m/20000MiB]"), why);
    }

    @Test
    void theMovedSharesArePlacedBesideTheOtherSharesAtTheNextDecision() {
        Occupancy o = new Occupancy(cluster);
        Placement wideAt = new Placement(List.of(new Placement.Slice(0, 0, 8)));
        RunningJob trainer = new RunningJob("trainer", "t", JobClass.TRAINING, 8, 7, 0, NOW - 600, NOW + 7200, RESUMABLE,
                new Placement(List.of(new Placement.Slice(1, 0, 7))), false);
        List<RunningJob> running = List.of(trainer, actor("actor-c", 1, 7, SHARE, NOW - 7200),
                new RunningJob("wide", "t", JobClass.TRAINING, 4, 8, NOW - 600, NOW, NOW + 7200, RESUMABLE, wideAt, true));
        for (RunningJob r : running) o.occupy(r.placement());
        List<PendingJob> moved = new ArrayList<>();
        for (String id : List.of("actor-a", "actor-b")) {
            moved.add(PendingJob.builder().id(id).team("t").jobClass(JobClass.BATCH_INFERENCE).weight(1).gpus(1).arrivalSeconds(0)
                    .estimatedRemainingSeconds(36_000).contract(RESUMABLE).slice(SliceRequest.timeSlice(300, 20_000)).build());
        }
        Decision d = new HorizonPolicy().decide(new PlanningContext(NOW + 60, 900, 16, cluster, o, running, moved, Map.of()));
        assertEquals(Set.of("actor-a", "actor-b"), Set.copyOf(d.starts().stream().map(Decision.Start::jobId).toList()), d.waitReasons().toString());
        for (Decision.Start s : d.starts()) assertEquals(new Placement.Slice(1, 7, 1, SHARE), s.placement().slices().get(0));
        assertTrue(d.preemptions().isEmpty());
    }

    @Test
    void nothingMovesWhereTheSharesDoNotAllFitElsewhereAtOnce() {
        Decision d = decide(NOW - 7200, GpuShare.timeSlice(600, 20_000));
        assertTrue(d.preemptions().isEmpty(), "only one of the two actors fits beside a 600-milli share: " + d.preemptionReasons());
        assertTrue(d.starts().isEmpty());
    }

    @Test
    void aShareInsideItsMinimumRuntimeIsNotMoved() {
        Decision d = decide(NOW - 600, SHARE);
        assertTrue(d.preemptions().isEmpty(), d.preemptionReasons().toString());
        assertTrue(d.starts().isEmpty());
    }
}
