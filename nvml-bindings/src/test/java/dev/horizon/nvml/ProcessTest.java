package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.sim.SimulatedDriver;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Compute processes, their memory, and the utilization they cause. */
class ProcessTest extends SessionTest {
    private static final long MIB = 1024L * 1024L;

    @Test
    void processesCanBeListedOnEveryGpu() {
        for (int i = 0; i < nvml.deviceCount(); i++) {
            for (GpuProcess p : nvml.processes(i)) {
                assertTrue(p.pid() > 0, p.toString());
                assertTrue(p.usedMemoryBytes() == null || p.usedMemoryBytes() >= 0, p.toString());
            }
        }
    }

    @Test
    void aProcessShowsWithItsMemoryAndKeepsTheGpuBusy() {
        SimulatedDriver sim = TestDriver.freshSim();
        sim.command("process gpu=1 pid=4242 mem=2048 sm=40 name=train.py");

        assertEquals(List.of(new GpuProcess(4242, "train.py", 2048 * MIB, null, null)), nvml.processes(1));
        assertTrue(nvml.processes(0).isEmpty());
        GpuReading gpu = nvml.gpu(1);
        assertEquals(2048 * MIB, gpu.memory().usedBytes());
        int busy = gpu.utilization().gpuPercent();
        assertTrue(busy >= 38 && busy <= 42, "about 40%: " + busy);
        assertTrue(gpu.powerDrawMilliwatts() > nvml.gpu(0).powerDrawMilliwatts());

        sim.command("util gpu=1 sm=73 mem=20");
        assertEquals(new Utilization(73, 20), nvml.utilization(1));

        sim.command("process-exit pid=4242");
        assertTrue(nvml.processes(1).isEmpty());
        assertEquals(0, nvml.memory(1).usedBytes());
    }

    @Test
    void manyProcessesComeBackWhole() {
        SimulatedDriver sim = TestDriver.freshSim();
        for (int pid = 100; pid < 130; pid++) sim.command("process gpu=3 pid=" + pid + " mem=100 sm=1 name=worker-" + pid);
        List<GpuProcess> processes = nvml.processes(TestDriver.H200);
        assertEquals(30, processes.size());
        assertEquals("worker-129", processes.get(29).name());
        assertEquals(3000 * MIB, nvml.memory(TestDriver.H200).usedBytes());
    }

    @Test
    void aProcessOnAMigDeviceCarriesItsInstanceIds() {
        SimulatedDriver sim = TestDriver.freshSim();
        nvml.setMigMode(TestDriver.H100, true);
        MigDevice device = nvml.createMigDevice(TestDriver.H100, "2g.20gb", null);
        sim.command("process gpu=0 pid=777 mem=5000 gi=" + device.gpuInstanceId() + " ci=0 name=serve.py");

        GpuProcess p = nvml.processes(TestDriver.H100).get(0);
        assertEquals(new GpuProcess(777, "serve.py", 5000 * MIB, device.gpuInstanceId(), 0), p);
        MigDevice after = nvml.migDevices(TestDriver.H100).get(0);
        assertEquals(5000 * MIB, after.memory().usedBytes());
        assertEquals(20096 * MIB, after.memory().totalBytes());
        var e = org.junit.jupiter.api.Assertions.assertThrows(dev.horizon.nvml.error.NvmlStateException.class,
                () -> nvml.destroyMigDevice(TestDriver.H100, device.gpuInstanceId()));
        assertEquals(dev.horizon.nvml.error.NvmlError.IN_USE, e.error());
    }

    @Test
    void aProcessCannotUseMoreMemoryThanThereIs() {
        SimulatedDriver sim = TestDriver.freshSim();
        var e = org.junit.jupiter.api.Assertions.assertThrows(dev.horizon.nvml.error.NvmlInsufficientResourcesException.class,
                () -> sim.command("process gpu=2 pid=1 mem=50000"));
        assertTrue(e.detail().contains("only"), e.getMessage());
        assertEquals(List.of(), nvml.processes(TestDriver.A100_40GB).stream().map(GpuProcess::pid).collect(Collectors.toList()));
    }
}
