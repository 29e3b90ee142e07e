package dev.horizon.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.api.scheduler.InferenceServices.ClusterGpus;
import dev.horizon.api.scheduler.InferenceServices.Gpu;
import dev.horizon.api.scheduler.InferenceServices.Running;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which GPUs a scaled service serves on: what it holds stays, then free GPUs, then fill, then the newest work; groups whole. */
class ServingGpusTest {
    /** Two nodes of four GPUs: a0..a3 and b0..b3. */
    private static final List<Gpu> GPUS = gpus("a", "b");

    @Test
    void aServiceKeepsWhatItHoldsAndTakesFreeGpusBeforeLentOnesAndLentOnesBeforeOtherWork() {
        Running fill = running("fill-job", true, 100, gpu("b", 0), gpu("b", 1));
        Running work = running("work", false, 50, gpu("a", 2), gpu("a", 3));
        ClusterGpus cluster = new ClusterGpus(GPUS, List.of(fill, work));
        ReplicaShape twoGpus = new ReplicaShape(1, 2);
        assertEquals(List.of("a0", "a1"), ServingGpus.choose(1, twoGpus, List.of("a0", "a1"), cluster, Set.of()), "one replica: what it holds");
        assertEquals(List.of("a0", "a1", "b2", "b3"), ServingGpus.choose(2, twoGpus, List.of("a0", "a1"), cluster, Set.of()),
                "the free pair on b before any GPU with work on it");
        assertEquals(List.of("a0", "a1", "b2", "b3", "b0", "b1"), ServingGpus.choose(3, twoGpus, List.of("a0", "a1"), cluster, Set.of()),
                "then the fill job's GPUs, before protected work");
        assertEquals(List.of("a0", "a1", "b2", "b3", "b0", "b1", "a2", "a3"), ServingGpus.choose(4, twoGpus, List.of("a0", "a1"), cluster, Set.of()));
        assertEquals(List.of("a0", "a1"), ServingGpus.choose(1, twoGpus, List.of("a0", "a1", "b2", "b3"), cluster, Set.of()),
                "shrinking gives back the last GPUs taken");
    }

    @Test
    void nodesThePlanHoldsForAWideJobAreTakenLastAmongFreeGpusAndGivenBackFirst() {
        ClusterGpus cluster = new ClusterGpus(gpus("a", "b"), List.of(), Map.of(), Set.of("a"));
        ReplicaShape oneGpu = new ReplicaShape(1, 1);
        assertEquals(List.of("b0", "b1"), ServingGpus.choose(2, oneGpu, List.of(), cluster, Set.of()), "free GPUs elsewhere first");
        assertEquals(List.of("b0", "b1", "b2", "b3", "a0"), ServingGpus.choose(5, oneGpu, List.of(), cluster, Set.of()),
                "a held node's free GPUs only once no other node has one");
        assertEquals(List.of("b0", "b1"), ServingGpus.choose(2, oneGpu, List.of("a0", "b0", "b1"), cluster, Set.of()),
                "shrinking lets the GPU on the held node go first, though it was taken first");
        assertEquals(List.of("a0", "b0", "b1"), ServingGpus.choose(3, oneGpu, List.of("a0", "b0", "b1"), cluster, Set.of()),
                "a GPU it holds stays while the service does not shrink");
        assertEquals(List.of("b1", "b2"), ServingGpus.choose(1, new ReplicaShape(2, 1), List.of("a0", "b0", "b1", "b2"), cluster, Set.of()),
                "a group of two one-GPU pods goes whole: the one with a pod on the held node, never half of each");
    }

    @Test
    void anotherServicesGpusAreNeverTakenAndAReplicaWithoutRoomIsNotHeldInPart() {
        ClusterGpus cluster = new ClusterGpus(GPUS, List.of());
        assertEquals(List.of("a2", "a3", "b2", "b3"), ServingGpus.choose(3, new ReplicaShape(1, 2), List.of(), cluster, Set.of("a0", "a1", "b0", "b1")),
                "two replicas fit beside the other service; the third has no room");
        assertEquals(List.of(), ServingGpus.choose(1, new ReplicaShape(1, 3), List.of(), cluster, Set.of("a0", "a1", "b0", "b1")),
                "a pod of 3 GPUs sits on one node: four free GPUs, two on each node, hold none of it");
    }

    @Test
    void aLeaderWorkerSetGroupIsHeldWholeWithEachPodOnOneNode() {
        Running work = running("newer", false, 200, gpu("a", 0), gpu("a", 1));
        Running older = running("older", false, 100, gpu("b", 0), gpu("b", 1));
        ClusterGpus cluster = new ClusterGpus(GPUS, List.of(work, older));
        ReplicaShape group = new ReplicaShape(2, 4);
        assertEquals(List.of("a2", "a3", "a0", "a1", "b2", "b3", "b0", "b1"), ServingGpus.choose(1, group, List.of(), cluster, Set.of()),
                "a group of two 4-GPU pods needs both nodes whole: the work on them gives way");
        assertEquals(List.of(), ServingGpus.choose(1, new ReplicaShape(3, 4), List.of(), cluster, Set.of()), "three pods of 4 have no room: none held");
    }

    @Test
    void aGroupThatAsksForOneNvlinkDomainHasAllItsPodsInOne() {
        ClusterGpus cluster = new ClusterGpus(gpus("a", "b", "c", "d"), List.of(), Map.of("a", "x", "b", "x", "c", "y", "d", "y"));
        Set<String> otherService = Set.of("b0");
        assertEquals(List.of("a0", "a1", "a2", "a3", "c0", "c1", "c2", "c3"), ServingGpus.choose(1, new ReplicaShape(2, 4), List.of(), cluster, otherService),
                "anywhere: a, and c since b has only 3 left");
        assertEquals(List.of("c0", "c1", "c2", "c3", "d0", "d1", "d2", "d3"), ServingGpus.choose(1, new ReplicaShape(2, 4, true), List.of(), cluster,
                otherService), "in one domain: x lacks room, so both pods in y");
    }

    private static List<Gpu> gpus(String... nodes) {
        List<Gpu> out = new ArrayList<>();
        for (String node : nodes) for (int i = 0; i < 4; i++) out.add(gpu(node, i));
        return out;
    }

    private static Gpu gpu(String node, int index) {
        return new Gpu(node, index, node + index);
    }

    private static Running running(String id, boolean fill, long startedAt, Gpu... gpus) {
        return new Running(id, List.of(gpus), fill, startedAt);
    }
}
