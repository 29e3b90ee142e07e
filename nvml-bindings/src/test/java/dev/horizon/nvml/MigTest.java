package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlInsufficientResourcesException;
import dev.horizon.nvml.error.NvmlInvalidArgumentException;
import dev.horizon.nvml.error.NvmlNotSupportedException;
import dev.horizon.nvml.error.NvmlPermissionException;
import dev.horizon.nvml.error.NvmlStateException;
import dev.horizon.nvml.sim.SimulatedDriver;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MIG: modes, profiles with the real geometry, instances created and destroyed, and the driver's
 * answers when an instance does not fit. Changes MIG, so on a real GPU it runs only with
 * HORIZON_NVML_ALLOW_MIG_CHANGES=1 (and cleans up after itself).
 */
class MigTest extends SessionTest {
    private final List<int[]> created = new ArrayList<>();
    private Integer enabledByTest;

    @BeforeEach
    void mayChangeMig() {
        TestDriver.assumeMigChangesAllowed();
    }

    @AfterEach
    void undoMigChanges() {
        for (int[] gi : created) {
            try {
                nvml.destroyMigDevice(gi[0], gi[1]);
            } catch (RuntimeException e) {
                // already gone
            }
        }
        if (enabledByTest != null) nvml.setMigMode(enabledByTest, false);
    }

    /** GPU with MIG enabled: a simulated H100, or the first MIG-capable real GPU. */
    private int migGpu() {
        int gpu = TestDriver.real() ? firstMigCapableGpu() : TestDriver.H100;
        enableMig(gpu);
        return gpu;
    }

    private int firstMigCapableGpu() {
        for (int i = 0; i < nvml.deviceCount(); i++) {
            if (nvml.gpu(i).migMode() != null) return i;
        }
        assumeTrue(false, "no MIG-capable GPU here");
        return -1;
    }

    private void enableMig(int gpu) {
        if (nvml.migMode(gpu).current()) return;
        nvml.setMigMode(gpu, true);
        enabledByTest = gpu;
    }

    private MigDevice create(int gpu, String profile, Integer placement) {
        MigDevice device = nvml.createMigDevice(gpu, profile, placement);
        created.add(new int[] {gpu, device.gpuInstanceId()});
        return device;
    }

    private GpuInstanceProfile profile(int gpu, String name) {
        return nvml.migProfiles(gpu).stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void createListAndDestroyAMigDevice() {
        int gpu = migGpu();
        GpuInstanceProfile smallest = nvml.migProfiles(gpu).get(0);
        int before = smallest.remainingCapacity();
        assumeTrue(before > 0, "no room for a " + smallest.name() + " on GPU " + gpu);

        MigDevice device = create(gpu, smallest.name(), null);

        assertTrue(device.uuid().startsWith("MIG-"), device.uuid());
        assertEquals(smallest.name(), device.profile());
        assertEquals(smallest.memoryMiB(), device.memory().totalMiB());
        assertEquals(smallest.placementSize(), device.placement().size());
        assertTrue(nvml.migDevices(gpu).contains(device));
        assertEquals(before - 1, profile(gpu, smallest.name()).remainingCapacity());
        assertEquals(device.uuid(), nvml.migDevices(gpu).stream().filter(m -> m.gpuInstanceId() == device.gpuInstanceId())
                .findFirst().orElseThrow().uuid(), "the UUID is stable");

        nvml.destroyMigDevice(gpu, device.gpuInstanceId());
        assertTrue(nvml.migDevices(gpu).stream().noneMatch(m -> m.uuid().equals(device.uuid())));
        assertEquals(before, profile(gpu, smallest.name()).remainingCapacity());
    }

    @Test
    void h100ProfilesHaveTheRealGeometry() {
        TestDriver.assumeSimulated();
        enableMig(TestDriver.H100);
        List<String> rows = nvml.migProfiles(TestDriver.H100).stream()
                .map(p -> p.name() + " id=" + p.profileId() + " slices=" + p.sliceCount() + " max=" + p.instanceCount()
                        + " free=" + p.remainingCapacity() + " mem=" + p.memoryMiB() + " sm=" + p.multiprocessorCount()
                        + " at=" + p.placements())
                .collect(Collectors.toList());
        assertEquals(List.of(
                "1g.10gb id=19 slices=1 max=7 free=7 mem=9984 sm=16 at=[0:1, 1:1, 2:1, 3:1, 4:1, 5:1, 6:1]",
                "1g.10gb+me id=20 slices=1 max=1 free=1 mem=9984 sm=16 at=[0:1, 1:1, 2:1, 3:1, 4:1, 5:1, 6:1]",
                "1g.20gb id=15 slices=1 max=4 free=4 mem=20096 sm=26 at=[0:2, 2:2, 4:2, 6:2]",
                "2g.20gb id=14 slices=2 max=3 free=3 mem=20096 sm=32 at=[0:2, 2:2, 4:2]",
                "3g.40gb id=9 slices=3 max=2 free=2 mem=40448 sm=60 at=[0:4, 4:4]",
                "4g.40gb id=5 slices=4 max=1 free=1 mem=40448 sm=64 at=[0:4]",
                "7g.80gb id=0 slices=7 max=1 free=1 mem=81152 sm=132 at=[0:8]"), rows);
    }

    @Test
    void everyModelHasItsOwnProfileNames() {
        TestDriver.assumeSimulated();
        expectProfiles(TestDriver.A100_40GB, "1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb");
        expectProfiles(TestDriver.A100_80GB, "1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb");
        expectProfiles(TestDriver.H200, "1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb");
        assertEquals(4864, profile(TestDriver.A100_40GB, "1g.5gb").memoryMiB());
        assertEquals(98, profile(TestDriver.A100_80GB, "7g.80gb").multiprocessorCount());
        assertEquals(16384, profile(TestDriver.H200, "1g.18gb").memoryMiB());
    }

    private void expectProfiles(int gpu, String... names) {
        enableMig(gpu);
        assertEquals(List.of(names), nvml.migProfiles(gpu).stream().map(GpuInstanceProfile::name).collect(Collectors.toList()));
        for (GpuInstanceProfile p : nvml.migProfiles(gpu)) {
            assertEquals(p.instanceCount(), p.remainingCapacity(), p.name() + " on an empty GPU");
            int total = p.placements().stream().mapToInt(MigPlacement::size).max().orElseThrow();
            assertTrue(total <= 8, "8 memory slices");
        }
    }

    @Test
    void anInstanceThatDoesNotFitFailsLikeTheDriver() {
        TestDriver.assumeSimulated();
        int gpu = migGpu();
        create(gpu, "7g.80gb", null);
        var e = assertThrows(NvmlInsufficientResourcesException.class, () -> create(gpu, "1g.10gb", null));
        assertEquals(NvmlError.INSUFFICIENT_RESOURCES, e.error());
        assertEquals("nvmlDeviceCreateGpuInstance", e.function());
        assertTrue(e.getMessage().contains("horizon smi mig profiles"), e.getMessage());
        assertEquals(0, profile(gpu, "1g.10gb").remainingCapacity());
    }

    @Test
    void sevenSmallInstancesFillAnH100AndTheEighthDoesNotFit() {
        TestDriver.assumeSimulated();
        int gpu = migGpu();
        List<String> uuids = new ArrayList<>();
        for (int i = 0; i < 7; i++) uuids.add(create(gpu, "1g.10gb", null).uuid());
        assertEquals(7, uuids.stream().distinct().count());
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), nvml.migDevices(gpu).stream().map(m -> m.placement().start()).sorted()
                .collect(Collectors.toList()));
        var e = assertThrows(NvmlInsufficientResourcesException.class, () -> create(gpu, "1g.10gb", null));
        assertEquals(NvmlError.INSUFFICIENT_RESOURCES, e.error());
        assertEquals(0, profile(gpu, "7g.80gb").remainingCapacity());
    }

    @Test
    void placementsFollowTheMemorySlices() {
        TestDriver.assumeSimulated();
        int gpu = migGpu();
        MigDevice threeG = create(gpu, "3g.40gb", null);
        assertEquals(new MigPlacement(4, 4), threeG.placement(), "the driver keeps 0:4 free for a 4g.40gb");
        assertEquals(2, threeG.gpuInstanceId());
        MigDevice fourG = create(gpu, "4g.40gb", null);
        assertEquals(new MigPlacement(0, 4), fourG.placement());
        assertEquals(0, profile(gpu, "1g.10gb").remainingCapacity(), "4g + 3g use all seven compute slices");

        nvml.destroyMigDevice(gpu, fourG.gpuInstanceId());
        var overlap = assertThrows(NvmlInsufficientResourcesException.class, () -> create(gpu, "3g.40gb", 4));
        assertEquals("nvmlDeviceCreateGpuInstanceWithPlacement", overlap.function());
        var overlapOther = assertThrows(NvmlInsufficientResourcesException.class, () -> create(gpu, "2g.20gb", 4));
        assertEquals(NvmlError.INSUFFICIENT_RESOURCES, overlapOther.error(), "4:2 lies inside the 3g.40gb at 4:4");
        var impossible = assertThrows(NvmlInvalidArgumentException.class, () -> create(gpu, "2g.20gb", 6));
        assertEquals(NvmlError.INVALID_ARGUMENT, impossible.error());
        assertEquals(new MigPlacement(2, 2), create(gpu, "2g.20gb", 2).placement());
    }

    @Test
    void computeInstancesSplitAGpuInstance() {
        TestDriver.assumeSimulated();
        int gpu = migGpu();
        GpuInstance gi = nvml.createGpuInstance(gpu, "MIG 3g.40gb", 0);
        created.add(new int[] {gpu, gi.id()});
        assertEquals(new GpuInstance(gpu, 1, 9, "3g.40gb", new MigPlacement(0, 4)), gi);
        assertTrue(nvml.migDevices(gpu).isEmpty(), "no compute instance, no MIG device");
        for (int i = 0; i < 3; i++) {
            ComputeInstance ci = nvml.createComputeInstance(gpu, gi.id(), 1);
            assertEquals("1c.3g.40gb", ci.profile());
            assertEquals(new MigPlacement(i, 1), ci.placement());
        }
        assertThrows(NvmlInsufficientResourcesException.class, () -> nvml.createComputeInstance(gpu, gi.id(), 1));
        List<MigDevice> devices = nvml.migDevices(gpu);
        assertEquals(3, devices.size());
        assertTrue(devices.stream().allMatch(d -> d.name().equals("NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb")
                && d.multiprocessorCount() == 20 && d.profile().equals("3g.40gb")));

        var inUse = assertThrows(NvmlStateException.class, () -> nvml.destroyGpuInstance(gpu, gi.id()));
        assertEquals(NvmlError.IN_USE, inUse.error());
        nvml.destroyComputeInstance(gpu, gi.id(), 1);
        assertEquals(2, nvml.migDevices(gpu).size());
        nvml.destroyMigDevice(gpu, gi.id());
        assertTrue(nvml.gpuInstances(gpu).isEmpty());
    }

    @Test
    void unknownProfileNamesTheValidOnes() {
        int gpu = migGpu();
        var e = assertThrows(UnknownMigProfileException.class, () -> nvml.createMigDevice(gpu, "5g.50gb", null));
        List<String> valid = nvml.migProfiles(gpu).stream().map(GpuInstanceProfile::name).collect(Collectors.toList());
        assertEquals(valid, e.validProfiles());
        assertTrue(e.getMessage().contains("\"5g.50gb\"") && e.getMessage().contains(String.join(", ", valid)), e.getMessage());
    }

    @Test
    void migMustBeEnabledFirst() {
        TestDriver.assumeSimulated();
        assertEquals(new MigMode(false, false), nvml.migMode(TestDriver.H100_SECOND));
        var e = assertThrows(NvmlNotSupportedException.class, () -> nvml.createMigDevice(TestDriver.H100_SECOND, "1g.10gb", null));
        assertTrue(e.getMessage().contains("MIG is disabled on GPU 1") && e.hint().contains("horizon smi mig enable --gpu 1"),
                e.getMessage());
    }

    @Test
    void utilizationIsNotReportedWhileMigIsOn() {
        TestDriver.assumeSimulated();
        enableMig(TestDriver.H100);
        assertNull(nvml.gpu(TestDriver.H100).utilization());
        assertThrows(NvmlNotSupportedException.class, () -> nvml.utilization(TestDriver.H100));
        nvml.setMigMode(TestDriver.H100, false);
        enabledByTest = null;
        assertEquals(new Utilization(0, 0), nvml.utilization(TestDriver.H100));
    }

    @Test
    void migModeStaysPendingWhileProcessesRun() {
        SimulatedDriver sim = TestDriver.freshSim();
        sim.command("process gpu=1 pid=31337 mem=1024");
        var e = assertThrows(NvmlStateException.class, () -> nvml.setMigMode(TestDriver.H100_SECOND, true));
        assertEquals("nvmlDeviceSetMigMode (activation)", e.function());
        assertEquals(NvmlError.IN_USE, e.error());
        assertEquals(new MigMode(false, true), nvml.migMode(TestDriver.H100_SECOND));
    }

    @Test
    void withoutPrivilegeMigChangesExplainWhatIsNeeded() {
        SimulatedDriver sim = TestDriver.freshSim();
        int gpu = migGpu();
        sim.command("fault gpu=0 fail=nvmlDeviceCreateGpuInstance:NVML_ERROR_NO_PERMISSION");
        var e = assertThrows(NvmlPermissionException.class, () -> create(gpu, "1g.10gb", null));
        assertTrue(e.getMessage().contains("NVML_ERROR_NO_PERMISSION") && e.hint().startsWith("changing MIG needs root or CAP_SYS_ADMIN"),
                e.getMessage());
    }
}
