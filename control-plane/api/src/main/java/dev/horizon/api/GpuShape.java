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

    /** The same shape on the given GPU models only (null: any model). */
    public GpuShape onModels(List<String> models) {
        return new GpuShape(gpus, migProfile, gpuMilli, memoryMiB, models == null ? null : List.copyOf(models));
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
        if (gpus != null && (gpus < 1 || gpus > Limits.GPUS_PER_REPLICA)) {
            errors.add("perReplica.gpus must be between 1 and " + Limits.GPUS_PER_REPLICA + ", the GPUs of one host (got " + gpus + ")");
        }
        if (migProfile != null && !MigProfiles.isKnown(migProfile)) {
            errors.add("perReplica.migProfile " + Limits.quote(migProfile) + " is not a MIG profile; use one of " + MigProfiles.known());
        }
        if (gpuMilli != null) {
            if (gpuMilli < 1 || gpuMilli > 1000) errors.add("perReplica.gpuMilli must be between 1 and 1000 (got " + gpuMilli + ")");
            if (memoryMiB == null || memoryMiB < 1 || memoryMiB > Limits.SHARE_MEMORY_MIB) {
                errors.add("perReplica.memoryMiB is required with gpuMilli: the memory limit of the share, 1 to " + Limits.SHARE_MEMORY_MIB + " MiB (got "
                        + memoryMiB + ")");
            }
        }
        if (gpuTypes != null) validateTypes(errors);
    }

    private void validateTypes(List<String> errors) {
        if (gpuTypes.size() > Limits.GPU_TYPES) errors.add("perReplica.gpuTypes lists " + gpuTypes.size() + " models; the limit is " + Limits.GPU_TYPES);
        for (int i = 0; i < Math.min(gpuTypes.size(), Limits.GPU_TYPES); i++) {
            String t = gpuTypes.get(i);
            if (t == null || t.isBlank()) errors.add("perReplica.gpuTypes[" + i + "] must not be empty (for example [\"H100-80GB\"])");
            Limits.text("perReplica.gpuTypes[" + i + "]", t, Limits.SHORT_NAME, errors);
        }
    }
}
