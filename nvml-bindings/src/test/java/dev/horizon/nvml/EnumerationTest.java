package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlInvalidArgumentException;
import dev.horizon.nvml.error.NvmlNotFoundException;
import dev.horizon.nvml.error.NvmlStateException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** GPUs, their identity and memory, as the driver reports them. Read-only: runs on real GPUs too. */
class EnumerationTest extends SessionTest {
    private static final long MIB = 1024L * 1024L;

    @Test
    void everyGpuHasAnIdentityTheDriverResolvesBack() {
        List<GpuReading> gpus = nvml.gpus();
        assertEquals(nvml.deviceCount(), gpus.size());
        assertFalse(gpus.isEmpty());
        Set<String> uuids = new HashSet<>();
        for (GpuReading gpu : gpus) {
            assertTrue(gpu.uuid().matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), gpu.uuid());
            assertTrue(uuids.add(gpu.uuid()), "unique " + gpu.uuid());
            assertTrue(gpu.pciBusId().matches("[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\\.[0-7]"), gpu.pciBusId());
            assertFalse(gpu.name().isBlank());
            assertEquals(gpu.index(), nvml.gpuByUuid(gpu.uuid()).index());
            MemoryInfo m = gpu.memory();
            assertTrue(m.totalBytes() > 0 && m.usedBytes() <= m.totalBytes() && m.freeBytes() <= m.totalBytes(), m.toString());
            assertNotNull(gpu.ecc());
        }
    }

    @Test
    void simulatedGpusAreTheRealModelsWithTheirRealMemory() {
        TestDriver.assumeSimulated();
        assertEquals(5, nvml.deviceCount());
        expectModel(TestDriver.H100, "NVIDIA H100 80GB HBM3", 81559);
        expectModel(TestDriver.H100_SECOND, "NVIDIA H100 80GB HBM3", 81559);
        expectModel(TestDriver.A100_40GB, "NVIDIA A100-SXM4-40GB", 40960);
        expectModel(TestDriver.H200, "NVIDIA H200", 143771);
        expectModel(TestDriver.A100_80GB, "NVIDIA A100-SXM4-80GB", 81920);
    }

    private void expectModel(int index, String name, long totalMiB) {
        GpuReading gpu = nvml.gpu(index);
        assertEquals(name, gpu.name());
        assertEquals(totalMiB * MIB, gpu.memory().totalBytes(), name);
        MemoryInfo m = gpu.memory();
        assertNotNull(m.reservedBytes(), "the simulated driver has the v2 memory struct");
        assertEquals(m.totalBytes(), m.reservedBytes() + m.freeBytes() + m.usedBytes());
        assertEquals(new Utilization(0, 0), gpu.utilization(), "idle");
        assertEquals(ComputeMode.DEFAULT, gpu.computeMode());
        assertEquals(new MigMode(false, false), gpu.migMode());
        assertTrue(gpu.powerLimitMilliwatts() >= 400_000 && gpu.powerDrawMilliwatts() < gpu.powerLimitMilliwatts());
        assertTrue(gpu.temperatureC() > 20 && gpu.temperatureC() < 50);
        EccHealth ecc = gpu.ecc();
        assertEquals(Boolean.TRUE, ecc.eccEnabled());
        assertEquals(0L, ecc.uncorrectedErrors());
        assertNull(ecc.retiredPagesDoubleBit(), "A100/H100/H200 remap rows instead of retiring pages");
        assertEquals(0, ecc.remappedRowsUncorrectable());
        assertFalse(ecc.needsAttention());
    }

    @Test
    void driverVersions() {
        DriverInfo driver = nvml.driver();
        assertTrue(driver.driverVersion().matches("\\d+\\.\\d+(\\.\\d+)?"), driver.driverVersion());
        assertTrue(driver.nvmlVersion().endsWith(driver.driverVersion()), driver.nvmlVersion());
        assertTrue(driver.cudaDriverVersion().matches("\\d+\\.\\d+"), driver.cudaDriverVersion());
        assertEquals(!TestDriver.real(), driver.simulated());
        if (driver.simulated()) assertEquals(TestDriver.SIM_GPUS, driver.simulation());
    }

    @Test
    void wrongIndexAndUnknownUuidAreTypedErrors() {
        var bad = assertThrows(NvmlInvalidArgumentException.class, () -> nvml.gpu(nvml.deviceCount()));
        assertEquals("nvmlDeviceGetHandleByIndex_v2", bad.function());
        var missing = assertThrows(NvmlNotFoundException.class,
                () -> nvml.gpuByUuid("GPU-00000000-0000-4000-8000-000000000000"));
        assertEquals(NvmlError.NOT_FOUND, missing.error());
    }

    @Test
    void aClosedSessionSaysSo() {
        NvmlSession other = NvmlSession.open();
        other.close();
        other.close();
        var e = assertThrows(NvmlStateException.class, other::deviceCount);
        assertEquals(NvmlError.UNINITIALIZED, e.error());
        assertEquals(nvml.gpus().size(), nvml.deviceCount(), "closing one session leaves the others working");
    }
}
