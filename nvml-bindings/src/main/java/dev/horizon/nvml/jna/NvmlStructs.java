package dev.horizon.nvml.jna;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * The NVML structs the bindings pass to the driver, field for field as nvml.h declares them
 * (JNA pads them like the C compiler). StructLayoutTest checks every {@code size()} against the
 * header's sizeof.
 */
public final class NvmlStructs {
    /** NVML_DEVICE_NAME_V2_BUFFER_SIZE: profile names in the versioned MIG structs. */
    public static final int NAME_V2_BUFFER_SIZE = 96;
    /** NVML_VALUE_NOT_AVAILABLE as an unsigned long long. */
    public static final long VALUE_NOT_AVAILABLE = -1L;
    /** gpuInstanceId / computeInstanceId of a process that does not run on a MIG device. */
    public static final int NO_INSTANCE_ID = 0xFFFFFFFF;

    private NvmlStructs() {}

    /** NVML_STRUCT_VERSION(type, ver): the struct's size in the low bits, the version in the top byte. */
    public static int structVersion(Structure struct, int version) {
        return struct.size() | (version << 24);
    }

    /** nvmlPciInfo_t (filled by nvmlDeviceGetPciInfo_v3). */
    @FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
    public static class PciInfo extends Structure {
        public byte[] busIdLegacy = new byte[16];
        public int domain;
        public int bus;
        public int device;
        public int pciDeviceId;
        public int pciSubSystemId;
        public byte[] busId = new byte[32];
    }

    /** nvmlMemory_t: used is reserved plus allocated. */
    @FieldOrder({"total", "free", "used"})
    public static class MemoryV1 extends Structure {
        public long total;
        public long free;
        public long used;
    }

    /** nvmlMemory_v2_t: reserved reported apart, used is allocated only. */
    @FieldOrder({"version", "total", "reserved", "free", "used"})
    public static class MemoryV2 extends Structure {
        public int version;
        public long total;
        public long reserved;
        public long free;
        public long used;

        public MemoryV2() {
            version = structVersion(this, 2);
        }
    }

    /** nvmlTemperature_v1_t, what nvmlDeviceGetTemperatureV fills (drivers that deprecate nvmlDeviceGetTemperature). */
    @FieldOrder({"version", "sensorType", "temperature"})
    public static class Temperature extends Structure {
        public int version;
        public int sensorType;
        public int temperature;

        public Temperature() {
            version = structVersion(this, 1);
        }
    }

    /** nvmlUtilization_t, percentages over the last sample period. */
    @FieldOrder({"gpu", "memory"})
    public static class Utilization extends Structure {
        public int gpu;
        public int memory;
    }

    /** nvmlProcessInfo_v1_t, what the unversioned process queries of old drivers fill. */
    @FieldOrder({"pid", "usedGpuMemory"})
    public static class ProcessInfoV1 extends Structure {
        public int pid;
        public long usedGpuMemory;
    }

    /** nvmlProcessInfo_t (the v2 layout), what nvmlDeviceGetComputeRunningProcesses_v3 fills. */
    @FieldOrder({"pid", "usedGpuMemory", "gpuInstanceId", "computeInstanceId"})
    public static class ProcessInfo extends Structure {
        public int pid;
        public long usedGpuMemory;
        public int gpuInstanceId;
        public int computeInstanceId;
    }

    /** nvmlDeviceAttributes_t, for MIG devices mostly. */
    @FieldOrder({"multiprocessorCount", "sharedCopyEngineCount", "sharedDecoderCount", "sharedEncoderCount",
            "sharedJpegCount", "sharedOfaCount", "gpuInstanceSliceCount", "computeInstanceSliceCount", "memorySizeMB"})
    public static class DeviceAttributes extends Structure {
        public int multiprocessorCount;
        public int sharedCopyEngineCount;
        public int sharedDecoderCount;
        public int sharedEncoderCount;
        public int sharedJpegCount;
        public int sharedOfaCount;
        public int gpuInstanceSliceCount;
        public int computeInstanceSliceCount;
        public long memorySizeMB;
    }

    /** nvmlEventData_t; eventData is the Xid of an nvmlEventTypeXidCriticalError. */
    @FieldOrder({"device", "eventType", "eventData", "gpuInstanceId", "computeInstanceId"})
    public static class EventData extends Structure {
        public Pointer device;
        public long eventType;
        public long eventData;
        public int gpuInstanceId;
        public int computeInstanceId;
    }

    /** nvmlGpuInstancePlacement_t: memory slices start..start+size. */
    @FieldOrder({"start", "size"})
    public static class GpuInstancePlacement extends Structure {
        public int start;
        public int size;

        public GpuInstancePlacement() {}

        public GpuInstancePlacement(int start, int size) {
            this.start = start;
            this.size = size;
        }
    }

    /** nvmlGpuInstanceProfileInfo_t (v1, unversioned). */
    @FieldOrder({"id", "isP2pSupported", "sliceCount", "instanceCount", "multiprocessorCount", "copyEngineCount",
            "decoderCount", "encoderCount", "jpegCount", "ofaCount", "memorySizeMB"})
    public static class GpuInstanceProfileInfo extends Structure {
        public int id;
        public int isP2pSupported;
        public int sliceCount;
        public int instanceCount;
        public int multiprocessorCount;
        public int copyEngineCount;
        public int decoderCount;
        public int encoderCount;
        public int jpegCount;
        public int ofaCount;
        public long memorySizeMB;
    }

    /** nvmlGpuInstanceProfileInfo_v2_t, what nvmlDeviceGetGpuInstanceProfileInfoV fills. */
    @FieldOrder({"version", "id", "isP2pSupported", "sliceCount", "instanceCount", "multiprocessorCount",
            "copyEngineCount", "decoderCount", "encoderCount", "jpegCount", "ofaCount", "memorySizeMB", "name"})
    public static class GpuInstanceProfileInfoV2 extends Structure {
        public int version;
        public int id;
        public int isP2pSupported;
        public int sliceCount;
        public int instanceCount;
        public int multiprocessorCount;
        public int copyEngineCount;
        public int decoderCount;
        public int encoderCount;
        public int jpegCount;
        public int ofaCount;
        public long memorySizeMB;
        public byte[] name = new byte[NAME_V2_BUFFER_SIZE];

        public GpuInstanceProfileInfoV2() {
            version = structVersion(this, 2);
        }
    }

    /** nvmlGpuInstanceInfo_t. */
    @FieldOrder({"device", "id", "profileId", "placement"})
    public static class GpuInstanceInfo extends Structure {
        public Pointer device;
        public int id;
        public int profileId;
        public GpuInstancePlacement placement = new GpuInstancePlacement();
    }

    /** nvmlComputeInstancePlacement_t: compute slices inside the GPU instance. */
    @FieldOrder({"start", "size"})
    public static class ComputeInstancePlacement extends Structure {
        public int start;
        public int size;
    }

    /** nvmlComputeInstanceProfileInfo_t (v1, unversioned). */
    @FieldOrder({"id", "sliceCount", "instanceCount", "multiprocessorCount", "sharedCopyEngineCount",
            "sharedDecoderCount", "sharedEncoderCount", "sharedJpegCount", "sharedOfaCount"})
    public static class ComputeInstanceProfileInfo extends Structure {
        public int id;
        public int sliceCount;
        public int instanceCount;
        public int multiprocessorCount;
        public int sharedCopyEngineCount;
        public int sharedDecoderCount;
        public int sharedEncoderCount;
        public int sharedJpegCount;
        public int sharedOfaCount;
    }

    /** nvmlComputeInstanceProfileInfo_v2_t, what nvmlGpuInstanceGetComputeInstanceProfileInfoV fills. */
    @FieldOrder({"version", "id", "sliceCount", "instanceCount", "multiprocessorCount", "sharedCopyEngineCount",
            "sharedDecoderCount", "sharedEncoderCount", "sharedJpegCount", "sharedOfaCount", "name"})
    public static class ComputeInstanceProfileInfoV2 extends Structure {
        public int version;
        public int id;
        public int sliceCount;
        public int instanceCount;
        public int multiprocessorCount;
        public int sharedCopyEngineCount;
        public int sharedDecoderCount;
        public int sharedEncoderCount;
        public int sharedJpegCount;
        public int sharedOfaCount;
        public byte[] name = new byte[NAME_V2_BUFFER_SIZE];

        public ComputeInstanceProfileInfoV2() {
            version = structVersion(this, 2);
        }
    }

    /** nvmlComputeInstanceInfo_t. */
    @FieldOrder({"device", "gpuInstance", "id", "profileId", "placement"})
    public static class ComputeInstanceInfo extends Structure {
        public Pointer device;
        public Pointer gpuInstance;
        public int id;
        public int profileId;
        public ComputeInstancePlacement placement = new ComputeInstancePlacement();
    }
}
