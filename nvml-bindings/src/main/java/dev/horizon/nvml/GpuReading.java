package dev.horizon.nvml;

/**
 * One physical GPU as read now. Fields the GPU does not report are null: utilization while MIG is
 * enabled, MIG mode on GPUs without MIG, memory where the driver refuses it (a container that sees
 * only the GPU's MIG devices, nvidia-container-toolkit#842), and so on.
 */
public record GpuReading(int index, String uuid, String name, String pciBusId, MemoryInfo memory, Utilization utilization,
                  Integer temperatureC, Long powerDrawMilliwatts, Long powerLimitMilliwatts, ComputeMode computeMode,
                  MigMode migMode, EccHealth ecc) {

    public boolean migEnabled() {
        return migMode != null && migMode.current();
    }
}
