package dev.horizon.allocator.model;

import dev.horizon.api.GpuShape;
import dev.horizon.api.MigProfiles;
import dev.horizon.api.mig.MigGeometry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What each replica of fractional work asks for: a MIG profile, or a time-slicing share (milli-GPU and memory), on
 * any GPU model unless gpuTypes names some.
 */
public record SliceRequest(String migProfile, int milli, long memoryMiB, Set<String> gpuTypes) {
    public SliceRequest {
        gpuTypes = gpuTypes == null ? Set.of() : Set.copyOf(gpuTypes);
    }

    public static SliceRequest mig(String profile) {
        return new SliceRequest(profile, 0, 0, Set.of());
    }

    public static SliceRequest timeSlice(int milli, long memoryMiB) {
        return new SliceRequest(null, milli, memoryMiB, Set.of());
    }

    /** The request of a job's shape, or null for whole GPUs. */
    public static SliceRequest of(GpuShape shape) {
        if (shape.gpus() != null) return null;
        Set<String> types = shape.gpuTypes() == null ? Set.of() : Set.copyOf(shape.gpuTypes());
        if (shape.migProfile() != null) return new SliceRequest(shape.migProfile(), 0, 0, types);
        return new SliceRequest(null, shape.gpuMilli(), shape.memoryMiB(), types);
    }

    public boolean isMig() {
        return migProfile != null;
    }

    /** One replica's size in GPUs: a MIG profile by its compute slices of 7, a share by its milli-GPU. */
    public double gpuFraction() {
        return isMig() ? MigProfiles.gpuFraction(migProfile) : milli / 1000.0;
    }

    /** Replicas one GPU with this much memory holds: MIG instances of the profile, or shares by milli-GPU and memory. */
    public int replicasPerGpu(long gpuMemoryMiB) {
        int byCompute = (int) Math.floor(1 / gpuFraction() + 1e-9);
        int byMemory = isMig() || memoryMiB <= 0 ? byCompute : (int) (gpuMemoryMiB / memoryMiB);
        return Math.max(1, Math.min(byCompute, byMemory));
    }

    public boolean accepts(String model) {
        return gpuTypes.isEmpty() || gpuTypes.contains(model);
    }

    /** Whether a GPU of this model can ever hold one replica: it offers the profile, or has the memory for the share. */
    public boolean fitsModel(String model, long gpuMemoryMiB) {
        if (!accepts(model)) return false;
        if (!isMig()) return memoryMiB <= gpuMemoryMiB;
        return MigGeometry.supportsMig(model) && MigGeometry.of(model).profiles().stream().anyMatch(p -> p.name().equals(migProfile));
    }

    /**
     * Why no GPU of this cluster could ever hold the request, naming the field and what the cluster has; empty when some
     * GPU could. A job that fails this would otherwise wait forever.
     */
    public List<String> problems(Cluster cluster) {
        List<String> problems = new ArrayList<>();
        Set<String> models = new TreeSet<>();
        cluster.nodes().forEach(n -> models.add(n.gpuModel()));
        for (String t : gpuTypes) {
            if (!models.contains(t)) problems.add("perReplica.gpuTypes: GPU type '" + t + "' is not in the cluster; it has " + models);
        }
        if (!problems.isEmpty()) return problems;
        if (cluster.nodes().stream().noneMatch(n -> fitsModel(n.gpuModel(), n.gpuMemoryMiB()))) {
            if (isMig()) {
                Set<String> offered = new TreeSet<>();
                for (String m : models) {
                    if (accepts(m) && MigGeometry.supportsMig(m)) MigGeometry.of(m).profiles().forEach(p -> offered.add(p.name()));
                }
                problems.add("perReplica.migProfile: no GPU model in the cluster " + models + " offers '" + migProfile + "'; "
                        + (offered.isEmpty() ? "none of its accepted models supports MIG, ask for gpuMilli with memoryMiB instead" : "use one of " + offered));
            } else {
                long most = cluster.nodes().stream().filter(n -> accepts(n.gpuModel())).mapToLong(GpuNode::gpuMemoryMiB).max().orElse(0);
                problems.add("perReplica.memoryMiB: " + memoryMiB + " MiB is more than any accepted GPU has (" + most + " MiB)");
            }
        }
        return problems;
    }
}
