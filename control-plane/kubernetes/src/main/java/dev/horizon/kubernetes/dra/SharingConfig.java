package dev.horizon.kubernetes.dra;

import dev.horizon.api.integration.PlannedDevice;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * NVIDIA's DRA driver's opaque device configuration for a shared GPU ({@code resource.nvidia.com/v1beta1} GpuConfig):
 * {@code sharing.strategy} TimeSlicing, or MPS with {@code defaultActiveThreadPercentage} and
 * {@code defaultPinnedDeviceMemoryLimit}, as the control plane asked that GPU to be shared.
 */
final class SharingConfig {
    static final String API_VERSION = "resource.nvidia.com/v1beta1";

    private SharingConfig() {
    }

    static Map<String, Object> gpuConfig(PlannedDevice.Sharing sharing) {
        Map<String, Object> how = new LinkedHashMap<>();
        if (sharing != null && sharing.mps()) {
            how.put("strategy", "MPS");
            Map<String, Object> mps = new LinkedHashMap<>();
            if (sharing.activeThreadPercentage() != null) mps.put("defaultActiveThreadPercentage", sharing.activeThreadPercentage());
            if (sharing.memoryLimitMiB() != null) mps.put("defaultPinnedDeviceMemoryLimit", sharing.memoryLimitMiB() + "Mi");
            how.put("mpsConfig", mps);
        } else {
            how.put("strategy", "TimeSlicing");
            how.put("timeSlicingConfig", Map.of("interval", "Default"));
        }
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("apiVersion", API_VERSION);
        config.put("kind", "GpuConfig");
        config.put("sharing", how);
        return config;
    }
}
