package dev.horizon.service.replay;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuNode;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.api.GpuShape;
import dev.horizon.api.JobSpec;
import dev.horizon.simulation.SimJob;
import java.util.List;

/**
 * A scenario's job as the job JSON a user would submit for it. Whole-GPU work keeps its replica width when the scenario
 * gives one; a trace job without one (N GPUs anywhere) becomes pods of gcd(N, node size) GPUs, which the placement rules
 * put on whole free nodes plus one block, as the trace's own rule does; an elastic one becomes one-GPU pods. Fractional
 * work keeps its slice.
 */
final class ScenarioJobs {
    private ScenarioJobs() {
    }

    static JobSpec spec(SimJob j, Cluster cluster) {
        int priority = (int) Math.round(j.weight());
        if (Math.abs(priority - j.weight()) > 1e-9) {
            throw new IllegalArgumentException("job " + j.id() + " weighs " + j.weight() + "; the service takes whole priorities (job JSON priority)");
        }
        List<String> types = j.rules().gpuTypes().isEmpty() ? null : List.copyOf(j.rules().gpuTypes());
        String topology = j.rules().topology().json();
        if (j.slice() != null) {
            SliceRequest s = j.slice();
            GpuShape shape = new GpuShape(null, s.migProfile(), s.migProfile() == null ? s.milli() : null, s.migProfile() == null ? (int) s.memoryMiB() : null,
                    types);
            return new JobSpec(j.id(), j.team(), j.jobClass(), priority, j.gpus(), null, shape, j.rules().gang(), topology, j.userEstimateSeconds(),
                    j.contract(), null);
        }
        int width = j.rules().perReplica() ? j.rules().gpusPerReplica() : j.elastic() ? 1 : podWidth(j.gpus(), largestNode(cluster));
        Integer minReplicas = j.elastic() ? j.minGpus() / width : null;
        return new JobSpec(j.id(), j.team(), j.jobClass(), priority, j.gpus() / width, minReplicas, new GpuShape(width, null, null, null, types),
                j.rules().gang(), topology, j.userEstimateSeconds(), j.contract(), null);
    }

    /** One pod for a job that fits a node; else the largest width that divides both the job and a node. */
    static int podWidth(int gpus, int nodeSize) {
        if (gpus <= nodeSize) return gpus;
        int a = gpus, b = nodeSize;
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    private static int largestNode(Cluster cluster) {
        return cluster.nodes().stream().mapToInt(GpuNode::gpus).max().orElse(1);
    }
}
