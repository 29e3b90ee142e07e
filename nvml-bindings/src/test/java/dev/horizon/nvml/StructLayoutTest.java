package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.jna.Structure;
import dev.horizon.nvml.jna.NvmlStructs;
import dev.horizon.nvml.sim.SimulatedDriver;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The JNA structs have the sizes nvml.h gives them on 64-bit Linux (worked out from the header's
 * declarations), and the simulated driver, compiled by gcc from its own declarations, agrees.
 */
class StructLayoutTest {
    private record Layout(String cName, int headerSize, Supplier<Structure> jna) {}

    private static final Map<String, Layout> LAYOUTS = new LinkedHashMap<>();

    static {
        add("nvmlPciInfo_t", 68, NvmlStructs.PciInfo::new);
        add("nvmlMemory_t", 24, NvmlStructs.MemoryV1::new);
        add("nvmlMemory_v2_t", 40, NvmlStructs.MemoryV2::new);
        add("nvmlUtilization_t", 8, NvmlStructs.Utilization::new);
        add("nvmlProcessInfo_v1_t", 16, NvmlStructs.ProcessInfoV1::new);
        add("nvmlProcessInfo_t", 24, NvmlStructs.ProcessInfo::new);
        add("nvmlDeviceAttributes_t", 40, NvmlStructs.DeviceAttributes::new);
        add("nvmlEventData_t", 32, NvmlStructs.EventData::new);
        add("nvmlGpuInstancePlacement_t", 8, NvmlStructs.GpuInstancePlacement::new);
        add("nvmlGpuInstanceProfileInfo_t", 48, NvmlStructs.GpuInstanceProfileInfo::new);
        add("nvmlGpuInstanceProfileInfo_v2_t", 152, NvmlStructs.GpuInstanceProfileInfoV2::new);
        add("nvmlGpuInstanceInfo_t", 24, NvmlStructs.GpuInstanceInfo::new);
        add("nvmlComputeInstancePlacement_t", 8, NvmlStructs.ComputeInstancePlacement::new);
        add("nvmlComputeInstanceProfileInfo_t", 36, NvmlStructs.ComputeInstanceProfileInfo::new);
        add("nvmlComputeInstanceProfileInfo_v2_t", 136, NvmlStructs.ComputeInstanceProfileInfoV2::new);
        add("nvmlComputeInstanceInfo_t", 32, NvmlStructs.ComputeInstanceInfo::new);
        add("nvmlTemperature_v1_t", 12, NvmlStructs.Temperature::new);
    }

    private static void add(String cName, int headerSize, Supplier<Structure> jna) {
        LAYOUTS.put(cName, new Layout(cName, headerSize, jna));
    }

    @Test
    void jnaSizesAreTheHeaderSizes() {
        for (Layout layout : LAYOUTS.values()) {
            assertEquals(layout.headerSize(), layout.jna().get().size(), layout.cName());
        }
    }

    @Test
    void gccLaysOutTheSimulatorsStructsTheSameWay() {
        TestDriver.assumeSimulated();
        SimulatedDriver sim = SimulatedDriver.require();
        for (Layout layout : LAYOUTS.values()) {
            assertEquals(layout.headerSize(), sim.cSizeOf(layout.cName()), layout.cName() + " in the simulated driver");
        }
        assertEquals(-1, sim.cSizeOf("nvmlNoSuchStruct_t"));
    }

    @Test
    void versionedStructsCarryNvmlStructVersionTags() {
        // NVML_STRUCT_VERSION(type, ver) = sizeof(type) | ver << 24
        assertEquals(0x02000028, new NvmlStructs.MemoryV2().version);
        assertEquals(0x02000098, new NvmlStructs.GpuInstanceProfileInfoV2().version);
        assertEquals(0x02000088, new NvmlStructs.ComputeInstanceProfileInfoV2().version);
        assertEquals(0x03000018, NvmlStructs.structVersion(new NvmlStructs.ProcessInfo(), 3));
        assertEquals(0x0100000C, new NvmlStructs.Temperature().version);
    }
}
