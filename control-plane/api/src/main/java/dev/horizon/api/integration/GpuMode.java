package dev.horizon.api.integration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Optional;

/**
 * How the GPUs of a Kubernetes node pool reach pods, which decides how an adapter releases planned work there and who
 * applies MIG layouts and sharing. {@code dra}: ResourceClaims select the planned devices in the ResourceSlices NVIDIA's
 * DRA driver publishes. {@code device-plugin}: the NVIDIA device plugin of the GPU Operator hands out
 * {@code nvidia.com/gpu} and {@code nvidia.com/mig-<profile>}, the MIG manager applies layouts and named sharing configs
 * time-slice or MPS-share the GPUs, a whole node at a time.
 */
public enum GpuMode {
    DRA("dra"), DEVICE_PLUGIN("device-plugin");

    private final String value;

    GpuMode(String value) {
        this.value = value;
    }

    /** The name in settings and in the API: "dra" or "device-plugin". */
    @JsonValue
    public String value() {
        return value;
    }

    public static Optional<GpuMode> of(String value) {
        return Arrays.stream(values()).filter(m -> m.value.equals(value)).findFirst();
    }

    @JsonCreator
    static GpuMode fromJson(String value) {
        return parse("gpuMode", value);
    }

    /** The mode named by a setting, or an error naming the setting and the valid values. */
    public static GpuMode parse(String setting, String value) {
        return of(value.trim()).orElseThrow(() -> new IllegalArgumentException(setting + ": '" + value.trim()
                + "' is not a GPU mode; use dra or device-plugin"));
    }
}
