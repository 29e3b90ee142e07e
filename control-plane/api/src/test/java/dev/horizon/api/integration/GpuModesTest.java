package dev.horizon.api.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuModesTest {
    @Test
    void aNodesModeIsItsPoolsElseTheBareOneElseDevicePlugin() {
        GpuModes modes = GpuModes.parse("dra, a100 = device-plugin", "cloud.google.com/gke-nodepool");
        assertEquals(GpuMode.DEVICE_PLUGIN, modes.of(Map.of("cloud.google.com/gke-nodepool", "a100")));
        assertEquals(GpuMode.DRA, modes.of(Map.of("cloud.google.com/gke-nodepool", "h200")));
        assertEquals(GpuMode.DRA, modes.of(Map.of()));
        assertEquals(GpuMode.DEVICE_PLUGIN, GpuModes.parse("h200=dra", GpuModes.DEFAULT_POOL_LABEL).of(Map.of()));
        assertEquals(GpuMode.DRA, GpuModes.parse("h200=dra", GpuModes.DEFAULT_POOL_LABEL).of(Map.of("horizon.dev/node-pool", "h200")));
    }

    @Test
    void aBadEntryNamesTheSettingAndTheFix() {
        assertEquals("horizon.kubernetes.gpu-mode (pool h200): 'mig' is not a GPU mode; use dra or device-plugin",
                assertThrows(IllegalArgumentException.class, () -> GpuModes.parse("h200=mig", "l")).getMessage());
        assertEquals("horizon.kubernetes.gpu-mode: two modes for nodes in no listed pool ('dra' and 'device-plugin'); give one, and POOL=MODE for"
                + " the pools that differ", assertThrows(IllegalArgumentException.class, () -> GpuModes.parse("dra,device-plugin", "l")).getMessage());
        assertEquals("horizon.kubernetes.gpu-mode: pool a is listed twice",
                assertThrows(IllegalArgumentException.class, () -> GpuModes.parse("a=dra,a=dra", "l")).getMessage());
    }
}
