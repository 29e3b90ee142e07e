package dev.horizon.allocator.actions.allocate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plan counts a fractional job by the whole GPUs its replicas fill, so one that fits the free GPUs starts now. */
class FractionalPlanTest {
    private static final long NOW = 36_000;
    private static final Contract RESUMABLE = new Contract(600, true, 30);
    private final Cluster cluster = new Cluster(List.of(new GpuNode("h100", "H100-80GB", 8, 81_559, "a")));

    /** Seven of the eight GPUs run protected work for two more hours; GPU 7 is free. */
    private static List<RunningJob> sevenBusy(Occupancy o) {
        Placement p = new Placement(List.of(new Placement.Slice(0, 0, 7)));
        o.occupy(p);
        return List.of(new RunningJob("seven", "t", JobClass.TRAINING, 4, 7, 0, NOW - 600, NOW + 7200, RESUMABLE, p, false));
    }

    private static PendingJob actors(SliceRequest share) {
        return PendingJob.builder().id("actors").team("t").jobClass(JobClass.BATCH_INFERENCE).weight(1).gpus(2).arrivalSeconds(NOW - 60)
                .estimatedRemainingSeconds(1800).contract(RESUMABLE).slice(share).build();
    }

    private Decision decide(PendingJob j) {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> running = sevenBusy(o);
        return new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, running, List.of(j), Map.of()));
    }

    @Test
    void twoHalfGpuActorsOpenTheOneFreeGpuNowInsteadOfWaitingForTwo() {
        Decision d = decide(actors(SliceRequest.timeSlice(500, 40_779)));
        assertEquals(1, d.starts().size(), "2 x 500 milli-GPU fill one GPU, and one is free: " + d.waitReasons());
        for (Placement.Slice s : d.starts().get(0).placement().slices()) assertEquals(List.of(0, 7), List.of(s.node(), s.firstGpu()), "both halves on GPU 7");
        assertEquals(2, d.starts().get(0).placement().slices().size());
    }

    @Test
    void halvesTooLargeInMemoryToShareAGpuAreStillPlannedAsTwoGpus() {
        Decision d = decide(actors(SliceRequest.timeSlice(500, 50_000)));
        assertTrue(d.starts().isEmpty(), "two 50,000 MiB halves cannot share an 80 GB GPU");
        assertTrue(d.waitReasons().get("actors").contains("500 milli-GPU"), d.waitReasons().get("actors"));
    }
}
