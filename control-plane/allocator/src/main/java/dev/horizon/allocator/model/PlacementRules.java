package dev.horizon.allocator.model;

import dev.horizon.api.JobSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Where a job's GPUs may be, as its job JSON asks: GPU models it accepts ({@code perReplica.gpuTypes}, empty: any),
 * whole GPUs per replica ({@code perReplica.gpus}; a replica is one pod and never spans nodes; 0: not given, then a job
 * wider than a node takes whole nodes plus one block, as trace jobs without pods do), whether its replicas form a gang,
 * and its topology. Every planner checks these through {@link Occupancy#findBlock(int, PlacementRules, NodeOrder)} or,
 * on the planning grid, through the eligibility the policy derives from them.
 *
 * <p>Horizon starts and stops a job as one unit, so a gang never runs in part: all its replicas start in the same
 * decision, and preempting or reclaiming the job takes all of them. {@code gang} adds that an elastic job (minReplicas
 * below replicas) shrinks only by whole replicas; a job without a gang shrinks the same way, since a pod is the unit.
 *
 * <p>{@code mixModels}: whether the job's GPUs may be of several models (the job JSON's {@code mixModels}, which needs
 * {@code gpuTypes} naming them); otherwise all of them are of one model ({@link ModelGroups}).
 */
public record PlacementRules(Set<String> gpuTypes, int gpusPerReplica, boolean gang, Topology topology, boolean mixModels) {

    /** Where the nodes of one job may be. */
    public enum Topology {
        /** Any nodes. */
        ANY,
        /** All replicas on one node. */
        SAME_NODE,
        /** All the job's nodes in one NVLink domain (the node's reported or declared {@link GpuNode#nvlinkDomain()}). */
        SAME_NVLINK_DOMAIN;

        /** The job JSON's form: "any", "same-node", "same-nvlink-domain". */
        public String json() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The topology the job JSON names (null: ANY). */
        public static Topology of(String json) {
            if (json == null) return ANY;
            for (Topology t : values()) if (t.json().equals(json)) return t;
            throw new IllegalArgumentException("topology '" + json + "' is not one of " + JobSpec.TOPOLOGIES);
        }
    }

    /** Any model, today's width rule, all replicas together, any nodes: what trace jobs without a job JSON get. */
    public static final PlacementRules ANY = new PlacementRules(Set.of(), 0, true, Topology.ANY);

    /** All on one GPU model. */
    public PlacementRules(Set<String> gpuTypes, int gpusPerReplica, boolean gang, Topology topology) {
        this(gpuTypes, gpusPerReplica, gang, topology, false);
    }

    public PlacementRules {
        gpuTypes = gpuTypes == null ? Set.of() : Set.copyOf(gpuTypes);
        topology = topology == null ? Topology.ANY : topology;
        if (gpusPerReplica < 0) throw new IllegalArgumentException("gpusPerReplica must be >= 0 (got " + gpusPerReplica + ")");
    }

    /** The rules a job JSON asks for; whole-GPU width only for whole-GPU shapes (a slice is one GPU's part). */
    public static PlacementRules of(JobSpec spec) {
        var shape = spec.perReplica();
        Set<String> types = shape == null || shape.gpuTypes() == null ? Set.of() : Set.copyOf(shape.gpuTypes());
        int perReplica = shape == null || shape.gpus() == null ? 0 : shape.gpus();
        return new PlacementRules(types, perReplica, spec.gangOrDefault(), Topology.of(spec.topology()), spec.mixModelsOrDefault() && types.size() > 1);
    }

    public PlacementRules withGpuTypes(Set<String> types) {
        return new PlacementRules(types, gpusPerReplica, gang, topology, mixModels && types.size() > 1);
    }

    public PlacementRules withTopology(Topology t) {
        return new PlacementRules(gpuTypes, gpusPerReplica, gang, t, mixModels);
    }

    /**
     * A hash of everything but the GPU models (consistent with equals): for keys built per waiting job per decision,
     * where hashing the models' set each time cost more than the lookup.
     */
    public static int scalarHash(PlacementRules r) {
        return r == null ? 0 : ((r.gpusPerReplica * 31 + (r.gang ? 1 : 0)) * 31 + r.topology.ordinal()) * 31 + (r.mixModels ? 1 : 0);
    }

    /** Whether a GPU of this model may hold the job. */
    public boolean accepts(String model) {
        return gpuTypes.isEmpty() || gpuTypes.contains(model);
    }

    /** Whether replicas are whole-GPU pods of a known width (each on one node). */
    public boolean perReplica() {
        return gpusPerReplica > 0;
    }

    /**
     * Widths an elastic job of {@code gpus} (at least {@code minGpus}) may start with, widest first: its full width,
     * then powers of two down to minGpus; with a known replica width, whole replicas only (a power of two of replicas).
     * The one place this rule lives: planners choose among these and the simulator refuses any other.
     */
    public List<Integer> widths(int gpus, int minGpus) {
        // a rigid job has its one width: asked per job at every decision, it is not built up each time
        if (minGpus >= gpus) return List.of(gpus);
        int unit = perReplica() && gpus % gpusPerReplica == 0 ? gpusPerReplica : 1;
        int replicas = gpus / unit;
        int minReplicas = Math.max(1, (minGpus + unit - 1) / unit);
        List<Integer> sizes = new ArrayList<>();
        sizes.add(gpus);
        int below = Integer.bitCount(replicas) == 1 ? replicas / 2 : Integer.highestOneBit(replicas);
        for (int r = below; r >= minReplicas; r /= 2) sizes.add(r * unit);
        return sizes;
    }
}
