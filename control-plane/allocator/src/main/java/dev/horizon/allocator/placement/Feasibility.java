package dev.horizon.allocator.placement;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.PlacementRules;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.api.JobSpec;
import dev.horizon.api.mig.MigGeometry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether any node or NVLink domain of a cluster could ever hold a job, whatever runs there now (drained nodes count: they
 * come back). A job that fails this would wait forever, so the control plane refuses it at submission (422) with these
 * problems, each naming the field to change and what the cluster has.
 */
public final class Feasibility {
    private Feasibility() {
    }

    /** The problems of a job JSON on this cluster; empty when some node or domain could hold it at its narrowest. */
    public static List<String> problems(JobSpec spec, Cluster cluster) {
        SliceRequest slice = SliceRequest.of(spec.perReplica());
        int perReplica = slice == null ? spec.perReplica().gpus() : 1;
        return problems(spec.replicaCount() * perReplica, spec.minReplicaCount() * perReplica, slice, PlacementRules.of(spec), cluster);
    }

    /**
     * gpus: the job's whole-GPU width (replicas for fractional work, one slice each); minGpus: its narrowest elastic width.
     */
    public static List<String> problems(int gpus, int minGpus, SliceRequest slice, PlacementRules rules, Cluster cluster) {
        if (slice != null) {
            List<String> problems = slice.problems(cluster);
            if (!problems.isEmpty()) return problems;
        } else {
            List<String> problems = absentTypes(rules, cluster);
            if (!problems.isEmpty()) return problems;
        }
        Map<String, Integer> byNode = new LinkedHashMap<>(), byDomain = new LinkedHashMap<>();
        for (int i = 0; i < cluster.nodes().size(); i++) {
            GpuNode n = cluster.nodes().get(i);
            int holds = slice == null ? wholeGpusFor(n, rules) : slicesFor(n, slice);
            if (holds == 0) continue;
            byNode.put(n.name(), holds);
            byDomain.merge(cluster.domainOf(i), holds, Integer::sum);
        }
        String what = slice == null ? minGpus + " GPUs" : minGpus + " replicas of " + describe(slice);
        List<String> problems = new ArrayList<>();
        if (slice == null && rules.perReplica() && byNode.isEmpty()) {
            problems.add("perReplica.gpus: " + rules.gpusPerReplica() + " GPUs per replica is more than any node of an accepted model has ("
                    + largest(cluster, rules) + "); a replica (pod) runs on one node");
            return problems;
        }
        int total = byNode.values().stream().mapToInt(Integer::intValue).sum();
        if (minGpus > total) {
            problems.add("replicas: " + what + " is more than the " + total + " the cluster could ever give it (" + models(cluster, rules, slice)
                    + "); ask for fewer replicas or GPUs per replica");
            return problems;
        }
        if (rules.topology() == PlacementRules.Topology.SAME_NODE && minGpus > Collections.max(byNode.values())) {
            problems.add("topology: same-node needs " + what + " on one node; the most one node could hold is " + Collections.max(byNode.values())
                    + "; ask for fewer replicas or topology same-nvlink-domain or any");
        }
        if (rules.topology() == PlacementRules.Topology.SAME_NVLINK_DOMAIN && minGpus > Collections.max(byDomain.values())) {
            problems.add("topology: same-nvlink-domain needs " + what + " inside one NVLink domain; the most one domain could hold is "
                    + Collections.max(byDomain.values()) + " (domains " + byDomain + "); ask for fewer replicas or topology any");
        }
        int oneModel = mostOfOneModel(cluster, byNode);
        if (problems.isEmpty() && !rules.mixModels() && minGpus > oneModel) {
            problems.add("replicas: " + what + " is more than the " + oneModel + " any one GPU model could ever give it (" + models(cluster, rules, slice)
                    + "); a job's GPUs are all of one model unless it sets mixModels: true with perReplica.gpuTypes naming the models");
        }
        return problems;
    }

    /** The most one GPU model's nodes could hold of the job (byNode: what each node could hold, by name). */
    private static int mostOfOneModel(Cluster cluster, Map<String, Integer> byNode) {
        Map<String, Integer> byModel = new LinkedHashMap<>();
        for (GpuNode n : cluster.nodes()) byModel.merge(n.gpuModel(), byNode.getOrDefault(n.name(), 0), Integer::sum);
        return Collections.max(byModel.values());
    }

    private static List<String> absentTypes(PlacementRules rules, Cluster cluster) {
        Set<String> models = new TreeSet<>();
        cluster.nodes().forEach(n -> models.add(n.gpuModel()));
        List<String> problems = new ArrayList<>();
        for (String t : new TreeSet<>(rules.gpuTypes())) {
            if (!models.contains(t)) problems.add("perReplica.gpuTypes: GPU type '" + t + "' is not in the cluster; it has " + models);
        }
        return problems;
    }

    /** Whole GPUs of node n the job could use: all of them, or as many whole replicas as fit. */
    private static int wholeGpusFor(GpuNode n, PlacementRules rules) {
        if (!rules.accepts(n.gpuModel())) return 0;
        return rules.perReplica() ? n.gpus() / rules.gpusPerReplica() * rules.gpusPerReplica() : n.gpus();
    }

    /** Replicas of a slice node n could hold at once: per GPU, the instances of its MIG profile or the shares that fit. */
    private static int slicesFor(GpuNode n, SliceRequest slice) {
        if (!slice.fitsModel(n.gpuModel(), n.gpuMemoryMiB())) return 0;
        int perGpu = slice.isMig()
                ? SlicePlacer.packed(n.gpuModel(), Collections.nCopies(MigGeometry.COMPUTE_SLICES, slice.migProfile())).slots().size()
                : (int) Math.min(1000 / slice.milli(), n.gpuMemoryMiB() / slice.memoryMiB());
        return perGpu * n.gpus();
    }

    private static int largest(Cluster cluster, PlacementRules rules) {
        return cluster.nodes().stream().filter(n -> rules.accepts(n.gpuModel())).mapToInt(GpuNode::gpus).max().orElse(0);
    }

    private static String models(Cluster cluster, PlacementRules rules, SliceRequest slice) {
        Map<String, Integer> gpus = new LinkedHashMap<>();
        for (GpuNode n : cluster.nodes()) {
            boolean accepted = slice == null ? rules.accepts(n.gpuModel()) : slice.fitsModel(n.gpuModel(), n.gpuMemoryMiB());
            if (accepted) gpus.merge(n.gpuModel(), n.gpus(), Integer::sum);
        }
        List<String> parts = new ArrayList<>();
        gpus.forEach((m, g) -> parts.add(g + " x " + m));
        return "accepted: " + String.join(", ", parts);
    }

    private static String describe(SliceRequest slice) {
        return slice.isMig() ? slice.migProfile() : slice.milli() + " milli-GPU with " + slice.memoryMiB() + " MiB";
    }
}
