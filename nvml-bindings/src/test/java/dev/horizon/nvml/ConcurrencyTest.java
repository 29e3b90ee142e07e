package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlInsufficientResourcesException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One session, many threads. */
class ConcurrencyTest extends SessionTest {
    private static final int THREADS = 8;
    private ExecutorService pool;

    @BeforeEach
    void startPool() {
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void concurrentReadsSeeTheSameGpus() throws Exception {
        List<GpuReading> expected = nvml.gpus();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            results.add(pool.submit(() -> {
                start.await();
                int reads = 0;
                for (int round = 0; round < 25; round++) {
                    for (GpuReading want : expected) {
                        GpuReading got = nvml.gpu(want.index());
                        assertEquals(want.uuid(), got.uuid());
                        assertEquals(want.name(), got.name());
                        assertEquals(want.memory().totalBytes(), got.memory().totalBytes());
                        nvml.processes(want.index());
                        nvml.migDevices(want.index());
                        reads++;
                    }
                }
                return reads;
            }));
        }
        start.countDown();
        for (Future<Integer> result : results) assertEquals(25 * expected.size(), result.get(60, TimeUnit.SECONDS));
    }

    @Test
    void concurrentMigCreatesNeverOverbook() throws Exception {
        TestDriver.assumeSimulated();
        nvml.setMigMode(TestDriver.H100, true);
        Map<String, Integer> outcomes = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            results.add(pool.submit(() -> {
                start.await();
                try {
                    MigDevice device = nvml.createMigDevice(TestDriver.H100, "1g.10gb", null);
                    outcomes.merge(device.uuid(), 1, Integer::sum);
                } catch (NvmlInsufficientResourcesException e) {
                    assertEquals(NvmlError.INSUFFICIENT_RESOURCES, e.error());
                    outcomes.merge("full", 1, Integer::sum);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> result : results) result.get(60, TimeUnit.SECONDS);
        assertEquals(1, outcomes.remove("full"), "eight threads, seven slots");
        assertEquals(7, outcomes.size());
        assertTrue(outcomes.values().stream().allMatch(n -> n == 1), "every MIG device is a different one");
        assertEquals(7, nvml.migDevices(TestDriver.H100).size());
    }
}
