package dev.horizon.kubernetes.dra;

/**
 * A device as NVIDIA's DRA driver (driver {@code gpu.nvidia.com}) publishes it in a ResourceSlice: a whole GPU (type
 * {@code gpu}, with its uuid) or a MIG device (type {@code mig}, with profile and parentUUID, and its own uuid once the
 * instance exists; the driver's dynamic MIG publishes possible instances without one). name is the device's name in its
 * slice (gpu-0, gpu-0-mig-9-4-4).
 */
public record DraDevice(String node, String name, String type, String uuid, String parentUuid, String profile, String productName) {
    public static final String GPU = "gpu";
    public static final String MIG = "mig";

    public boolean gpu() {
        return GPU.equals(type);
    }

    public boolean mig() {
        return MIG.equals(type);
    }

    /** The GPU this device is or is part of. */
    public String gpuUuid() {
        return mig() ? parentUuid : uuid;
    }
}
