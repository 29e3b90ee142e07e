package dev.horizon.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.allocator.model.InferenceService;
import dev.horizon.simulation.ServiceDemand;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the demo's inference service takes GPUs: where the simulator's would, so the live day and its comparison agree. */
class ServingTest {
    /** The demo's two hosts: node-a100's GPUs 6 and 7 in MIG layouts, as `./horizon demo` partitions them. */
    private static List<Serving.Gpu> demoGpus() {
        List<Serving.Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) gpus.add(new Serving.Gpu("node-h100", i, "GPU-h100-" + i, false));
        for (int i = 0; i < 8; i++) gpus.add(new Serving.Gpu("node-a100", i, "GPU-a100-" + i, i >= 6));
        return gpus;
    }

    @Test
    void theServiceTakesTheFullerNodeFirstAndLeavesTheOtherWholeForAGang() {
        Serving serving = new Serving(new ServiceDemand(new InferenceService("chat-serving", "applied", 4, 2), new double[0], new double[] {3}));
        List<String> free = serving.free(demoGpus(), List.of());
        assertEquals(14, free.size(), "every whole GPU but the two in MIG layouts");
        assertEquals(14, new HashSet<>(free).size());
        assertEquals(6, free.stream().limit(6).filter(u -> u.startsWith("GPU-a100-")).count(),
                "node-a100 (6 whole GPUs free) before node-h100 (8): an 8-GPU job needs node-h100 whole; " + free);
    }
}
