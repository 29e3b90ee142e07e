package dev.horizon.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.trace.ScenarioFile;
import dev.horizon.trace.ScenarioOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fractional jobs in the simulator: slices counted by their size, MIG layouts changed under the pool's policy. */
class FractionalSimulationTest {
    private static final ScenarioOptions OPTIONS = new ScenarioOptions(1, null, null, 1.0, 0.3, 0, null, null, null, null);

    private static String job(String name, String shape) {
        return "{\"name\":\"" + name + "\",\"team\":\"t\",\"class\":\"BATCH_INFERENCE\",\"perReplica\":" + shape
                + ",\"arrivalSeconds\":0,\"durationSeconds\":3600}";
    }

    private static Scenario scenario(Path dir, String policyLayout, String... jobs) throws IOException {
        Path file = dir.resolve("fractional.json");
        Files.writeString(file, "{\"name\":\"fractional\",\"gpus\":8,\"days\":1,\"migPolicy\":{\"partitionableModels\":[\"H100-80GB\"],"
                + "\"allowedProfiles\":[\"3g.40gb\",\"1g.10gb\"],\"layout\":\"" + policyLayout + "\",\"drainTimeSeconds\":300,"
                + "\"maxConcurrentReconfigurations\":1},\"jobs\":[" + String.join(",", jobs) + "]}");
        return ScenarioFile.read(file, OPTIONS);
    }

    @Test
    void slicesShareGpusAndCountByTheirSize(@TempDir Path dir) throws IOException {
        Scenario s = scenario(dir, "DYNAMIC", job("ts-a", "{\"gpuMilli\":500,\"memoryMiB\":30000}"), job("ts-b", "{\"gpuMilli\":500,\"memoryMiB\":30000}"),
                job("mig-a", "{\"migProfile\":\"3g.40gb\"}"), job("mig-b", "{\"migProfile\":\"3g.40gb\"}"));
        SimResult r = new Simulator(s, new HorizonPolicy()).run(f -> { });
        assertEquals(4, r.metrics().jobsCompleted(), r.waitingReasons().toString());
        Map<String, Segment> byJob = new HashMap<>();
        r.segments().forEach(seg -> byJob.put(seg.jobId(), seg));
        assertEquals(0.5, byJob.get("ts-a").gpus(), 1e-9);
        assertEquals(3.0 / 7, byJob.get("mig-a").gpus(), 1e-9, "a 3g instance is 3 of 7 compute slices");
        assertEquals(gpuOf(byJob.get("ts-a")), gpuOf(byJob.get("ts-b")), "the two halves share a GPU");
        assertEquals(gpuOf(byJob.get("mig-a")), gpuOf(byJob.get("mig-b")), "the two 3g instances share a GPU");
        assertTrue(byJob.get("mig-a").startSeconds() >= 300, "MIG work waits out the drain time of the re-partitioning");
        // each job kept its whole hour: (0.5 + 0.5 + 3/7 + 3/7) GPU-hours of 8 GPUs x 24 h
        assertEquals((1 + 6.0 / 7) * 3600 / (8 * 86_400.0), r.metrics().utilization(), 1e-9);
    }

    @Test
    void aFixedPolicyOrAnUnknownProfileNeverRunsMigWork(@TempDir Path dir) throws IOException {
        SimResult fixed = new Simulator(scenario(dir, "FIXED", job("mig", "{\"migProfile\":\"3g.40gb\"}")), new HorizonPolicy()).run(f -> { });
        assertEquals(0, fixed.metrics().jobsStarted());
        assertTrue(fixed.waitingReasons().get("mig").contains("no idle GPU may be re-partitioned"), fixed.waitingReasons().toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> scenario(dir, "DYNAMIC", job("a100", "{\"migProfile\":\"1g.5gb\"}")));
        assertTrue(e.getMessage().contains("jobs[0]: perReplica.migProfile: no GPU model in the cluster [H100-80GB] offers '1g.5gb'"), e.getMessage());
    }

    private static String gpuOf(Segment s) {
        return s.nodes().substring(0, s.nodes().indexOf(':'));
    }
}
