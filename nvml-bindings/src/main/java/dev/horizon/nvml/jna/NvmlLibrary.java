package dev.horizon.nvml.jna;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import dev.horizon.nvml.jna.NvmlStructs.ComputeInstanceInfo;
import dev.horizon.nvml.jna.NvmlStructs.ComputeInstancePlacement;
import dev.horizon.nvml.jna.NvmlStructs.ComputeInstanceProfileInfoV2;
import dev.horizon.nvml.jna.NvmlStructs.DeviceAttributes;
import dev.horizon.nvml.jna.NvmlStructs.EventData;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstanceInfo;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstancePlacement;
import dev.horizon.nvml.jna.NvmlStructs.GpuInstanceProfileInfoV2;
import dev.horizon.nvml.jna.NvmlStructs.MemoryV1;
import dev.horizon.nvml.jna.NvmlStructs.MemoryV2;
import dev.horizon.nvml.jna.NvmlStructs.PciInfo;
import dev.horizon.nvml.jna.NvmlStructs.ProcessInfo;
import dev.horizon.nvml.jna.NvmlStructs.Temperature;
import dev.horizon.nvml.jna.NvmlStructs.Utilization;

/**
 * libnvidia-ml as JNA sees it: the NVML functions the Horizon agent uses, with the versioned
 * symbol names the driver exports (what nvml.h's macros turn nvmlInit, nvmlDeviceGetCount, ...
 * into). Every function answers an nvmlReturn_t; handles (nvmlDevice_t, nvmlGpuInstance_t,
 * nvmlComputeInstance_t, nvmlEventSet_t) are opaque pointers. Use {@link dev.horizon.nvml.NvmlSession}
 * rather than this.
 */
public interface NvmlLibrary extends Library {
    int NVML_TEMPERATURE_GPU = 0;
    int NVML_DEVICE_MIG_DISABLE = 0;
    int NVML_DEVICE_MIG_ENABLE = 1;
    /**
     * One past the newest GPU instance profile enum: 0xA up to CUDA 12.6, 0xD with the +gfx profiles (0xA-0xC),
     * 0x11 with -me and +me.all (0xD-0x10), 0x12 in the newest headers. The bindings ask for every enum below it; a
     * driver answers INVALID_ARGUMENT for enums newer than itself and NOT_SUPPORTED for profiles the GPU lacks.
     */
    int NVML_GPU_INSTANCE_PROFILE_COUNT = 0x12;
    /** One past NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE_NVL (0x8), the newest compute instance profile enum. */
    int NVML_COMPUTE_INSTANCE_PROFILE_COUNT = 0x9;
    int NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED = 0;
    int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
    int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
    int NVML_VOLATILE_ECC = 0;
    int NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0;
    int NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1;
    long NVML_EVENT_TYPE_XID_CRITICAL_ERROR = 0x8L;
    int DRIVER_VERSION_BUFFER_SIZE = 80;
    int DEVICE_NAME_BUFFER_SIZE = 96;
    int DEVICE_UUID_BUFFER_SIZE = 96;
    int PROCESS_NAME_BUFFER_SIZE = 256;

    int nvmlInit_v2();

    int nvmlShutdown();

    String nvmlErrorString(int result);

    int nvmlSystemGetDriverVersion(byte[] version, int length);

    int nvmlSystemGetNVMLVersion(byte[] version, int length);

    int nvmlSystemGetCudaDriverVersion_v2(IntByReference cudaDriverVersion);

    int nvmlSystemGetProcessName(int pid, byte[] name, int length);

    int nvmlDeviceGetCount_v2(IntByReference deviceCount);

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);

    int nvmlDeviceGetIndex(Pointer device, IntByReference index);

    int nvmlDeviceGetName(Pointer device, byte[] name, int length);

    int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

    int nvmlDeviceGetPciInfo_v3(Pointer device, PciInfo pci);

    int nvmlDeviceGetMemoryInfo(Pointer device, MemoryV1 memory);

    int nvmlDeviceGetMemoryInfo_v2(Pointer device, MemoryV2 memory);

    int nvmlDeviceGetUtilizationRates(Pointer device, Utilization utilization);

    int nvmlDeviceGetTemperature(Pointer device, int sensorType, IntByReference temp);

    int nvmlDeviceGetTemperatureV(Pointer device, Temperature temperature);

    int nvmlDeviceGetPowerUsage(Pointer device, IntByReference milliwatts);

    int nvmlDeviceGetEnforcedPowerLimit(Pointer device, IntByReference milliwatts);

    int nvmlDeviceGetEccMode(Pointer device, IntByReference current, IntByReference pending);

    int nvmlDeviceGetTotalEccErrors(Pointer device, int errorType, int counterType, LongByReference eccCounts);

    int nvmlDeviceGetRetiredPages(Pointer device, int cause, IntByReference pageCount, long[] addresses);

    int nvmlDeviceGetRetiredPagesPendingStatus(Pointer device, IntByReference isPending);

    int nvmlDeviceGetRemappedRows(Pointer device, IntByReference corrRows, IntByReference uncRows,
                                  IntByReference isPending, IntByReference failureOccurred);

    int nvmlDeviceGetComputeRunningProcesses_v3(Pointer device, IntByReference infoCount, ProcessInfo infos);

    int nvmlDeviceGetComputeMode(Pointer device, IntByReference mode);

    int nvmlDeviceGetAttributes_v2(Pointer device, DeviceAttributes attributes);

    int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode);

    int nvmlDeviceSetMigMode(Pointer device, int mode, IntByReference activationStatus);

    int nvmlDeviceGetGpuInstanceProfileInfoV(Pointer device, int profile, GpuInstanceProfileInfoV2 info);

    int nvmlDeviceGetGpuInstancePossiblePlacements_v2(Pointer device, int profileId, GpuInstancePlacement placements,
                                                      IntByReference count);

    int nvmlDeviceGetGpuInstanceRemainingCapacity(Pointer device, int profileId, IntByReference count);

    int nvmlDeviceCreateGpuInstance(Pointer device, int profileId, PointerByReference gpuInstance);

    int nvmlDeviceCreateGpuInstanceWithPlacement(Pointer device, int profileId, GpuInstancePlacement placement,
                                                 PointerByReference gpuInstance);

    int nvmlGpuInstanceDestroy(Pointer gpuInstance);

    int nvmlDeviceGetGpuInstances(Pointer device, int profileId, Pointer[] gpuInstances, IntByReference count);

    int nvmlDeviceGetGpuInstanceById(Pointer device, int id, PointerByReference gpuInstance);

    int nvmlGpuInstanceGetInfo(Pointer gpuInstance, GpuInstanceInfo info);

    int nvmlGpuInstanceGetComputeInstanceProfileInfoV(Pointer gpuInstance, int profile, int engProfile,
                                                      ComputeInstanceProfileInfoV2 info);

    int nvmlGpuInstanceGetComputeInstanceRemainingCapacity(Pointer gpuInstance, int profileId, IntByReference count);

    int nvmlGpuInstanceCreateComputeInstance(Pointer gpuInstance, int profileId, PointerByReference computeInstance);

    int nvmlGpuInstanceCreateComputeInstanceWithPlacement(Pointer gpuInstance, int profileId,
                                                          ComputeInstancePlacement placement,
                                                          PointerByReference computeInstance);

    int nvmlComputeInstanceDestroy(Pointer computeInstance);

    int nvmlGpuInstanceGetComputeInstances(Pointer gpuInstance, int profileId, Pointer[] computeInstances,
                                           IntByReference count);

    int nvmlGpuInstanceGetComputeInstanceById(Pointer gpuInstance, int id, PointerByReference computeInstance);

    int nvmlComputeInstanceGetInfo_v2(Pointer computeInstance, ComputeInstanceInfo info);

    int nvmlDeviceIsMigDeviceHandle(Pointer device, IntByReference isMigDevice);

    int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id);

    int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id);

    int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

    int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);

    int nvmlDeviceGetDeviceHandleFromMigDeviceHandle(Pointer migDevice, PointerByReference device);

    int nvmlEventSetCreate(PointerByReference set);

    int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

    int nvmlEventSetWait_v2(Pointer set, EventData data, int timeoutms);

    int nvmlEventSetFree(Pointer set);
}
