package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.baseline.FifoPolicy;
import dev.horizon.baseline.KaiPolicy;
import dev.horizon.baseline.KueuePolicy;
import dev.horizon.trace.ScenarioFile;
import dev.horizon.trace.ScenarioOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slice is credited as a slice: whatever GPU a policy put it on, a job is credited (and charged) for the share it asked
 * for, while a policy that cannot share still occupies the whole GPU.
 */
class SliceCreditTest {
    private static final ScenarioOptions OPTIONS = new ScenarioOptions(1, null, null, 1.0, 0.3, 0, null, null, null, null);
    private static final double DAY_OF_8_GPUS = 8 * 86_400.0;

    private static Scenario oneJob(Path dir, String perReplica, int replicas) throws IOException {
        Path file = dir.resolve("slices.json");
        Files.writeString(file, "{\"name\":\"slices\",\"gpus\":8,\"days\":1,\"jobs\":[{\"name\":\"small\",\"team\":\"t\",\"class\":\"BATCH_INFERENCE\","
                + "\"priority\":2,\"replicas\":" + replicas + ",\"perReplica\":" + perReplica + ",\"arrivalSeconds\":0,\"durationSeconds\":3600}]}");
        return ScenarioFile.read(file, OPTIONS);
    }

    @Test
    void aMigSliceOnAWholeGpuIsCreditedItsSevenths(@TempDir Path dir) throws IOException {
        SimResult fifo = new Simulator(oneJob(dir, "{\"migProfile\":\"1g.10gb\"}", 1), new FifoPolicy()).run(f -> { });
        Segment s = fifo.segments().get(0);
        assertEquals(1.0 / 7, s.gpus(), 1e-9, "credited the 1g.10gb it asked for: " + s);
        assertEquals(1.0, s.heldGpus(), 1e-9, "FIFO cannot partition, so it holds the whole GPU: " + s);
        assertEquals(2 * (1.0 / 7), fifo.metrics().priorityWeightedOutput(), 1e-9, "weight 2 x 1/7 GPU x 1 h");
        assertEquals(3600 / DAY_OF_8_GPUS, fifo.metrics().utilization(), 1e-9, "utilization counts the GPU it occupied");
    }

    @Test
    void kaiSharesHalvesAsGpuFractionsAndKueueHoldsAGpuEach(@TempDir Path dir) throws IOException {
        Scenario halves = oneJob(dir, "{\"gpuMilli\":500,\"memoryMiB\":30000}", 2);
        SimResult kai = new Simulator(halves, new KaiPolicy()).run(f -> { });
        SimResult kueue = new Simulator(halves, new KueuePolicy()).run(f -> { });
        assertEquals(kai.metrics().priorityWeightedOutput(), kueue.metrics().priorityWeightedOutput(), 1e-9, "both are credited one GPU-hour of halves");
        assertEquals(2 * 1.0, kai.metrics().priorityWeightedOutput(), 1e-9);
        assertEquals(3600 / DAY_OF_8_GPUS, kai.metrics().utilization(), 1e-9, "KAI's gpu-fraction puts both halves on one GPU");
        assertEquals(2 * 3600 / DAY_OF_8_GPUS, kueue.metrics().utilization(), 1e-9, "kube-scheduler without sharing holds a GPU per half");
    }
}
