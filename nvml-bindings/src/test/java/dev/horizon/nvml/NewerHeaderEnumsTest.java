package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import dev.horizon.nvml.jna.NvmlLibrary;
import dev.horizon.nvml.jna.NvmlStructs.ComputeInstanceProfileInfoV2;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstancePlacement;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstanceProfileInfoV2;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Profile enums newer than CUDA 12.6 (the -me, +me.all and +gfx GPU instance profiles, 0xA-0x11, and the
 * NVL compute instance profile, 0x8) reach the bindings. None of the simulated models has them (they come with
 * Blackwell parts), so a stand-in driver answers here: one GPU with a 7-slice profile, a "-me" profile at
 * NVML_GPU_INSTANCE_PROFILE_1_SLICE_NO_ME, and one GPU instance whose compute instance was made with
 * NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE_NVL. The stand-in answers as nvml.h says a driver does:
 * NOT_SUPPORTED for a profile the GPU lacks.
 */
class NewerHeaderEnumsTest {
    private static final int SUCCESS = 0;
    private static final int INVALID_ARGUMENT = 2;
    private static final int NOT_SUPPORTED = 3;
    private static final int IN_USE = 19;
    private static final int GI_PROFILE_7_SLICE = 0x4;
    private static final int GI_PROFILE_1_SLICE_NO_ME = 0xD;
    private static final int CI_PROFILE_7_SLICE_NVL = 0x8;
    private static final Pointer GPU = new Pointer(0x1000);
    private static final Pointer GPU_INSTANCE = new Pointer(0x2000);
    private static final Pointer COMPUTE_INSTANCE = new Pointer(0x3000);

    /** What the stand-in was asked to do, in order. */
    private final List<String> changes = new ArrayList<>();
    private boolean computeInstanceExists = true;

    private NvmlSession session() {
        NvmlLibrary lib = (NvmlLibrary) Proxy.newProxyInstance(NvmlLibrary.class.getClassLoader(),
                new Class<?>[] {NvmlLibrary.class}, (proxy, method, args) -> answer(method, args));
        return new NvmlSession(lib, "stand-in libnvidia-ml", false, NvmlCallObserver.NONE);
    }

    private Object answer(Method method, Object[] args) {
        switch (method.getName()) {
            case "nvmlErrorString":
                return "stand-in error";
            case "nvmlShutdown":
                return SUCCESS;
            case "nvmlDeviceGetHandleByIndex_v2":
                ((PointerByReference) args[1]).setValue(GPU);
                return SUCCESS;
            case "nvmlDeviceGetGpuInstanceProfileInfoV":
                return giProfile((int) args[1], (GpuInstanceProfileInfoV2) args[2]);
            case "nvmlDeviceGetGpuInstanceRemainingCapacity":
                ((IntByReference) args[2]).setValue(1);
                return SUCCESS;
            case "nvmlDeviceGetGpuInstancePossiblePlacements_v2":
                return placements((int) args[1], (GpuInstancePlacement) args[2], (IntByReference) args[3]);
            case "nvmlDeviceGetGpuInstanceById":
                ((PointerByReference) args[2]).setValue(GPU_INSTANCE);
                return SUCCESS;
            case "nvmlGpuInstanceGetComputeInstanceProfileInfoV":
                return ciProfile((int) args[1], (ComputeInstanceProfileInfoV2) args[3]);
            case "nvmlGpuInstanceGetComputeInstances":
                boolean nvl = (int) args[1] == CI_PROFILE_7_SLICE_NVL && computeInstanceExists;
                if (nvl) ((Pointer[]) args[2])[0] = COMPUTE_INSTANCE;
                ((IntByReference) args[3]).setValue(nvl ? 1 : 0);
                return SUCCESS;
            case "nvmlComputeInstanceDestroy":
                changes.add("destroy compute instance");
                computeInstanceExists = false;
                return SUCCESS;
            case "nvmlGpuInstanceDestroy":
                if (computeInstanceExists) return IN_USE;
                changes.add("destroy GPU instance");
                return SUCCESS;
            default:
                throw new UnsupportedOperationException("the stand-in driver does not answer " + method.getName());
        }
    }

    private static int giProfile(int profile, GpuInstanceProfileInfoV2 info) {
        if (profile >= NvmlLibrary.NVML_GPU_INSTANCE_PROFILE_COUNT) return INVALID_ARGUMENT;
        if (profile == GI_PROFILE_7_SLICE) fill(info, 0, "MIG 7g.180gb", 7, 183296);
        else if (profile == GI_PROFILE_1_SLICE_NO_ME) fill(info, 1, "MIG 1g.23gb-me", 1, 23552);
        else return NOT_SUPPORTED;
        return SUCCESS;
    }

    private static void fill(GpuInstanceProfileInfoV2 info, int id, String name, int slices, long memoryMiB) {
        info.id = id;
        info.sliceCount = slices;
        info.instanceCount = 8 / Math.max(1, slices);
        info.memorySizeMB = memoryMiB;
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, info.name, 0, bytes.length);
    }

    private static int placements(int profileId, GpuInstancePlacement first, IntByReference count) {
        count.setValue(1);
        if (first != null) {
            first.start = 0;
            first.size = profileId == 0 ? 8 : 1;
            first.write();
        }
        return SUCCESS;
    }

    private static int ciProfile(int profile, ComputeInstanceProfileInfoV2 info) {
        if (profile >= NvmlLibrary.NVML_COMPUTE_INSTANCE_PROFILE_COUNT) return INVALID_ARGUMENT;
        if (profile != CI_PROFILE_7_SLICE_NVL && profile != 0x4) return NOT_SUPPORTED;
        info.id = profile;
        info.sliceCount = 7;
        return SUCCESS;
    }

    @Test
    void aProfileAtAnEnumNewerThanCuda126IsListed() {
        try (NvmlSession nvml = session()) {
            List<String> names = nvml.migProfiles(0).stream().map(GpuInstanceProfile::name).toList();
            assertEquals(List.of("1g.23gb-me", "7g.180gb"), names);
        }
    }

    @Test
    void aComputeInstanceMadeWithTheNvlProfileIsFoundAndDestroyedFirst() {
        try (NvmlSession nvml = session()) {
            nvml.destroyMigDevice(0, 0);
        }
        assertEquals(List.of("destroy compute instance", "destroy GPU instance"), changes);
    }
}
