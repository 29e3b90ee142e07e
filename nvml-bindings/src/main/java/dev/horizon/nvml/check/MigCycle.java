package dev.horizon.nvml.check;

import dev.horizon.nvml.GpuReading;
import dev.horizon.nvml.GpuInstance;
import dev.horizon.nvml.MigDevice;
import dev.horizon.nvml.MigMode;
import dev.horizon.nvml.GpuInstanceProfile;
import dev.horizon.nvml.NvmlSession;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The one MIG change the check makes, only when asked to (HORIZON_ALLOW_MIG_CHANGES=1) and only as root: on the
 * first MIG-capable GPU that runs nothing, enable MIG if it is off, create and list one instance of the smallest
 * profile that fits, destroy it, and switch MIG back off if it was off, so the GPU is left as it was found.
 */
final class MigCycle {
    private final NvmlSession nvml;
    private final Steps steps;

    MigCycle(NvmlSession nvml, Steps steps) {
        this.nvml = nvml;
        this.steps = steps;
    }

    /** What the report says about the cycle: whether it ran (and why not), and whether the GPU is as it was. */
    Map<String, Object> run(boolean allowed, int uid, List<GpuReading> gpus) {
        Map<String, Object> out = new LinkedHashMap<>();
        Integer gpu = gpus.stream().filter(g -> g.migMode() != null && idle(g.index())).map(GpuReading::index).findFirst().orElse(null);
        String reason = !allowed ? "HORIZON_ALLOW_MIG_CHANGES=1 is not set (the check stays read-only)"
                : uid != 0 ? "not root (uid " + uid + "): MIG changes need root"
                : gpu == null ? "no MIG-capable GPU without processes" : null;
        out.put("ran", reason == null);
        if (reason != null) {
            out.put("reason", reason);
            return out;
        }
        out.put("gpu", gpu);
        out.putAll(cycle(gpu));
        return out;
    }

    private boolean idle(int index) {
        List<?> processes = steps.run("gpu " + index + ": processes before MIG changes", () -> nvml.processes(index));
        return processes != null && processes.isEmpty();
    }

    private Map<String, Object> cycle(int gpu) {
        Map<String, Object> out = new LinkedHashMap<>();
        String p = "gpu " + gpu + ": ";
        MigMode before = steps.run(p + "MIG mode before", () -> nvml.migMode(gpu));
        List<GpuInstance> instancesBefore = before == null ? null
                : before.current() ? steps.run(p + "GPU instances before", () -> nvml.gpuInstances(gpu)) : List.of();
        if (instancesBefore == null) {
            out.put("restored", true);
            out.put("note", "what the GPU has could not be read, so nothing was changed");
            return out;
        }
        boolean enabled = before.current() || steps.act(p + "enable MIG", () -> nvml.setMigMode(gpu, true));
        MigDevice created = null;
        if (enabled) {
            GpuInstanceProfile smallest = steps.run(p + "MIG profiles with MIG on", () -> nvml.migProfiles(gpu).stream()
                    .filter(m -> m.remainingCapacity() > 0).findFirst().orElseThrow(() -> new IllegalStateException("no profile fits")));
            if (smallest != null) {
                out.put("profile", smallest.name());
                created = steps.run(p + "create MIG device " + smallest.name(), () -> nvml.createMigDevice(gpu, smallest.name(), null));
            }
        }
        if (created != null) {
            MigDevice device = created;
            steps.run(p + "list MIG devices", () -> nvml.migDevices(gpu).stream().filter(d -> d.uuid().equals(device.uuid())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the new MIG device " + device.uuid() + " is not listed")));
            steps.act(p + "destroy MIG device", () -> nvml.destroyMigDevice(gpu, device.gpuInstanceId()));
        }
        if (!before.current()) steps.act(p + "disable MIG", () -> nvml.setMigMode(gpu, false));
        MigMode after = steps.run(p + "MIG mode after", () -> nvml.migMode(gpu));
        List<GpuInstance> instancesAfter = after != null && after.current() ? steps.run(p + "GPU instances after", () -> nvml.gpuInstances(gpu))
                : List.of();
        out.put("restored", Objects.equals(before, after) && Objects.equals(instancesBefore, instancesAfter));
        out.put("created", created == null ? null : created.uuid());
        return out;
    }
}
