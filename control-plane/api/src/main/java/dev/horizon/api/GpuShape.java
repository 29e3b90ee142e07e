package dev.horizon.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What one replica asks for: exactly one of whole GPUs, a MIG profile, or a time-slicing share
 * (gpuMilli with memoryMiB). gpuTypes optionally restricts the GPU models.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GpuShape(Integer gpus, String migProfile, Integer gpuMilli, Integer memoryMiB, List<String> gpuTypes) {

    public static GpuShape wholeGpus(int gpus) {
        return new GpuShape(gpus, null, null, null, null);
    }

    /** GPUs this shape occupies, counting a MIG slice or a time-slice share by its fraction of a GPU. */
    public double gpuFraction() {
        if (gpus != null) return gpus;
        if (gpuMilli != null) return gpuMilli / 1000.0;
        return MigProfiles.gpuFraction(migProfile);
    }

    void validate(List<String> errors) {
        int kinds = (gpus != null ? 1 : 0) + (migProfile != null ? 1 : 0) + (gpuMilli != null ? 1 : 0);
        if (kinds != 1) {
            errors.add("perReplica: give exactly one of \"gpus\", \"migProfile\" or \"gpuMilli\" (with \"memoryMiB\")");
            return;
        }
        if (gpus != null && gpus < 1) errors.add("perReplica.gpus must be at least 1 (got " + gpus + ")");
        if (migProfile != null && !MigProfiles.isKnown(migProfile)) {
            errors.add("perReplica.migProfile '" + migProfile + "' is not a MIG profile; use one of " + MigProfiles.known());
        }
        if (gpuMilli != null) {
            if (gpuMilli < 1 || gpuMilli > 1000) errors.add("perReplica.gpuMilli must be between 1 and 1000 (got " + gpuMilli + ")");
            if (memoryMiB == null || memoryMiB < 1) errors.add("perReplica.memoryMiB is required with gpuMilli: the memory limit of the share in MiB");
        }
        if (gpuTypes != null && gpuTypes.stream().anyMatch(t -> t == null || t.isBlank())) {
            errors.add("perReplica.gpuTypes must not contain empty names (for example [\"H100-80GB\"])");
        }
    }
}
