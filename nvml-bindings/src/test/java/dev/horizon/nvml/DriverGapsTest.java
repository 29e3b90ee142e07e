package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlPermissionException;
import dev.horizon.nvml.sim.SimulatedDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the real driver does and the simulated one did not, found by comparing the bindings with NVIDIA's nvml.h and
 * public `nvidia-smi mig -lgip` output: each test here failed before the simulator and the bindings were fixed.
 */
class DriverGapsTest extends SessionTest {
    private SimulatedDriver sim;

    @BeforeEach
    void simulated() {
        sim = TestDriver.freshSim();
    }

    private Map<String, Long> memoryByProfile(int gpu) {
        return nvml.migProfiles(gpu).stream().collect(Collectors.toMap(GpuInstanceProfile::name, GpuInstanceProfile::memoryMiB));
    }

    @Test
    void h200AndA100ProfilesHaveTheMemoryTheDriverLists() {
        Map<String, Long> h200 = memoryByProfile(TestDriver.H200);
        assertEquals(16384L, h200.get("1g.18gb"));
        // as driver 580.159.04 listed them on a real H200 (tests/device)
        assertEquals(33280L, h200.get("1g.35gb"), "32.50 GiB");
        assertEquals(33280L, h200.get("2g.35gb"), "32.50 GiB");
        assertEquals(71424L, h200.get("3g.71gb"), "69.75 GiB");
        assertEquals(71424L, h200.get("4g.71gb"), "69.75 GiB");
        assertEquals(143360L, h200.get("7g.141gb"), "140.00 GiB");
        assertEquals(80896L, memoryByProfile(TestDriver.A100_80GB).get("7g.80gb"), "79.00 GiB");
    }

    @Test
    void profilesAndPlacementsAreListedWhileMigIsOff() {
        assertFalse(nvml.migMode(TestDriver.H100_SECOND).current());
        List<GpuInstanceProfile> profiles = nvml.migProfiles(TestDriver.H100_SECOND);
        assertEquals(7, profiles.size(), profiles.toString());
        GpuInstanceProfile half = profiles.stream().filter(p -> p.name().equals("3g.40gb")).findFirst().orElseThrow();
        assertEquals(List.of(new MigPlacement(0, 4), new MigPlacement(4, 4)), half.placements());
        // a real H200 (driver 580.159.04) with MIG off answered each profile's capacity on the empty GPU, and no instances
        assertEquals(2, half.remainingCapacity(), "what fits once MIG is on");
        assertEquals(List.of(), nvml.gpuInstances(TestDriver.H100_SECOND), "no instances, rather than NVML_ERROR_NOT_SUPPORTED");
    }

    @Test
    void maxMigDeviceCountIsZeroWhileMigIsOff() {
        assertEquals(0, nvml.maxMigDeviceCount(TestDriver.H100));
        nvml.setMigMode(TestDriver.H100, true);
        assertEquals(7, nvml.maxMigDeviceCount(TestDriver.H100));
    }

    @Test
    void withoutPrivilegeMigDevicesAreUnknownAndTheRestStillReads() {
        nvml.setMigMode(TestDriver.H100, true);
        nvml.createMigDevice(TestDriver.H100, "1g.10gb", null);
        sim.command("driver unprivileged=1");

        var e = assertThrows(NvmlPermissionException.class, () -> nvml.migDevices(TestDriver.H100));
        assertEquals(NvmlError.NO_PERMISSION, e.error());
        assertTrue(e.getMessage().contains("MIG devices are unknown") && e.hint().contains("run the agent privileged"), e.getMessage());
        assertThrows(NvmlPermissionException.class, () -> nvml.gpuInstances(TestDriver.H100));
        assertTrue(nvml.gpu(TestDriver.H100).migEnabled(), "the GPU itself still reads");
        GpuInstanceProfile small = nvml.migProfiles(TestDriver.H100).get(0);
        assertEquals("1g.10gb", small.name());
        assertEquals(List.of(), small.placements(), "placements need privilege too");
        assertEquals(List.of(), nvml.migDevices(TestDriver.H100_SECOND), "a GPU with MIG off needs no instance reads");
    }

    @Test
    void inAContainerThatSeesOnlyMigDevicesTheParentsMemoryIsRefused() {
        nvml.setMigMode(TestDriver.H100, true);
        MigDevice device = nvml.createMigDevice(TestDriver.H100, "3g.40gb", null);
        sim.command("driver container=mig-only");

        GpuReading parent = nvml.gpu(TestDriver.H100);
        assertNull(parent.memory(), "the driver answers NO_PERMISSION for the parent");
        assertThrows(NvmlPermissionException.class, () -> nvml.memory(TestDriver.H100));
        assertEquals(device.memory().totalMiB(), nvml.migDevices(TestDriver.H100).get(0).memory().totalMiB());
        assertNotNull(nvml.gpu(TestDriver.H100_SECOND).memory(), "a GPU without MIG is visible whole");
    }

    @Test
    void temperatureComesFromTemperatureVAndFallsBackToTheOlderCall() {
        sim.command("fault gpu=0 fail=nvmlDeviceGetTemperature:DEPRECATED");
        List<String> calls = new ArrayList<>();
        try (NvmlSession observed = NvmlSession.open((function, rc, nanos) -> {
            if (function.startsWith("nvmlDeviceGetTemperature")) calls.add(function + "=" + NvmlError.of(rc).constantName());
        })) {
            assertNotNull(observed.gpu(0).temperatureC(), "a driver that deprecates nvmlDeviceGetTemperature");
            assertEquals(List.of("nvmlDeviceGetTemperatureV=NVML_SUCCESS"), calls);

            calls.clear();
            sim.command("fault clear");
            sim.command("fault gpu=1 fail=nvmlDeviceGetTemperatureV:FUNCTION_NOT_FOUND");
            assertNotNull(observed.gpu(1).temperatureC(), "a driver older than nvmlDeviceGetTemperatureV");
            assertEquals(List.of("nvmlDeviceGetTemperatureV=NVML_ERROR_FUNCTION_NOT_FOUND", "nvmlDeviceGetTemperature=NVML_SUCCESS"), calls);
        }
    }

    @Test
    void migDevicesAreFoundByEitherUuidForm() {
        nvml.setMigMode(TestDriver.H100, true);
        MigDevice modern = nvml.createMigDevice(TestDriver.H100, "1g.10gb", null);
        String parent = nvml.gpu(TestDriver.H100).uuid();
        String legacyName = "MIG-" + parent + "/" + modern.gpuInstanceId() + "/" + modern.computeInstanceId();
        assertTrue(modern.uuid().matches("MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), modern.uuid());
        assertEquals(modern, nvml.migDeviceByUuid(modern.uuid()).orElseThrow());
        assertEquals(modern, nvml.migDeviceByUuid(legacyName).orElseThrow());

        sim.command("driver mig-uuids=legacy");
        MigDevice old = nvml.migDevices(TestDriver.H100).get(0);
        assertEquals(legacyName, old.uuid(), "R450-R465 drivers name MIG devices after their place");
        assertEquals(old, nvml.migDeviceByUuid(legacyName).orElseThrow());
        assertEquals(TestDriver.H100, nvml.gpuByUuid(parent).index());

        TestDriver.Run destroyed = TestDriver.smi("mig", "destroy", "--gpu", "0", "--uuid", legacyName);
        assertEquals(0, destroyed.status(), destroyed.err());
        assertEquals(List.of(), nvml.migDevices(TestDriver.H100));
    }
}
