package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlGpuLostException;
import dev.horizon.nvml.error.NvmlInvalidArgumentException;
import dev.horizon.nvml.error.NvmlNotSupportedException;
import dev.horizon.nvml.sim.SimulatedDriver;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Faults injected into the simulated driver reach the caller as the real driver would send them. */
class FaultTest extends SessionTest {
    private SimulatedDriver sim;

    @BeforeEach
    void simulated() {
        sim = TestDriver.freshSim();
    }

    @Test
    void aLostGpuIsATypedErrorAndTheOthersKeepWorking() {
        String uuid = nvml.gpu(1).uuid();
        sim.command("fault gpu=1 lost");

        var e = assertThrows(NvmlGpuLostException.class, () -> nvml.gpu(1));
        assertEquals(NvmlError.GPU_IS_LOST, e.error());
        assertEquals("nvmlDeviceGetHandleByIndex_v2", e.function());
        assertTrue(e.getMessage().contains("NVML_ERROR_GPU_IS_LOST (GPU is lost)") && e.hint().contains("fell off the bus"),
                e.getMessage());
        assertThrows(NvmlGpuLostException.class, () -> nvml.gpuByUuid(uuid));
        assertThrows(NvmlGpuLostException.class, nvml::gpus);
        assertEquals("NVIDIA H100 80GB HBM3", nvml.gpu(0).name());
        assertEquals(5, nvml.deviceCount(), "a lost GPU is still counted");

        sim.command("fault clear");
        assertEquals(uuid, nvml.gpu(1).uuid());
    }

    @Test
    void xidEventsArriveOnce() {
        try (NvmlSession.XidWatch watch = nvml.watchXid()) {
            assertEquals(Optional.empty(), watch.next(Duration.ofMillis(20)));
            sim.command("fault gpu=2 xid=79");
            sim.command("fault gpu=0 xid=48");
            assertEquals(Optional.of(new XidEvent(0, 48, null, null)), watch.next(Duration.ofSeconds(2)));
            assertEquals(Optional.of(new XidEvent(2, 79, null, null)), watch.next(Duration.ofSeconds(2)));
            assertEquals(Optional.empty(), watch.next(Duration.ofMillis(20)));
        }
    }

    @Test
    void aCallTheGpuDoesNotSupportLeavesAGapNotAFailure() {
        sim.command("fault gpu=0 fail=nvmlDeviceGetPowerUsage:NOT_SUPPORTED");
        GpuReading gpu = nvml.gpu(0);
        assertNull(gpu.powerDrawMilliwatts());
        assertEquals(700_000L, gpu.powerLimitMilliwatts());
        var e = assertThrows(NvmlNotSupportedException.class, () -> nvml.powerDrawMilliwatts(0));
        assertEquals("nvmlDeviceGetPowerUsage", e.function());
        assertTrue(nvml.powerDrawMilliwatts(1) > 0, "only GPU 0 was told to fail");
    }

    @Test
    void eccErrorsAndRowRemappingShowInHealth() {
        sim.command("ecc gpu=3 corrected=5 uncorrected=1 remapped-unc=1 remap-pending=1");
        EccHealth ecc = nvml.ecc(TestDriver.H200);
        assertEquals(5L, ecc.correctedErrors());
        assertEquals(1L, ecc.uncorrectedErrors());
        assertEquals(1, ecc.remappedRowsUncorrectable());
        assertEquals(Boolean.TRUE, ecc.remappingPending());
        assertEquals(Boolean.FALSE, ecc.remappingFailed());
        assertNull(ecc.retiredPagesSingleBit());
        assertTrue(ecc.needsAttention());
        assertTrue(!nvml.ecc(TestDriver.H100).needsAttention());
    }

    @Test
    void badSimulatorCommandsAreExplained() {
        var e = assertThrows(NvmlInvalidArgumentException.class, () -> sim.command("fault gpu=9 lost"));
        assertTrue(e.detail().contains("gpu=9 does not exist"), e.getMessage());
        var unknown = assertThrows(NvmlInvalidArgumentException.class, () -> sim.command("explode gpu=0"));
        assertTrue(unknown.detail().contains("unknown command \"explode\""), unknown.getMessage());
    }
}
