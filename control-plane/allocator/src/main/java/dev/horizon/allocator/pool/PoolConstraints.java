package dev.horizon.allocator.pool;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.PendingJob;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The GPU models each pending job and each inference service accepts (a job's {@code gpuTypes}), by
 * job id and service name. A job or service absent here, or with an empty set, accepts every model:
 * it may go to any pool, so it ties all pools together.
 */
public record PoolConstraints(Map<String, Set<String>> jobModels, Map<String, Set<String>> serviceModels) {
    public PoolConstraints {
        jobModels = Map.copyOf(jobModels);
        serviceModels = Map.copyOf(serviceModels);
    }

    /**
     * The GPU models each waiting job's placement rules accept; services accept every model (an inference service may
     * grow onto any node, so a cluster with one plans jointly).
     */
    public static PoolConstraints of(PlanningContext ctx) {
        Map<String, Set<String>> models = new LinkedHashMap<>();
        for (PendingJob j : ctx.pending()) models.put(j.id(), j.rules().gpuTypes());
        return new PoolConstraints(models, Map.of());
    }

    /** Nothing is pinned to a model: every pool depends on every other. */
    public static PoolConstraints none() {
        return new PoolConstraints(Map.of(), Map.of());
    }

    Set<String> ofJob(String id) {
        return jobModels.getOrDefault(id, Set.of());
    }

    Set<String> ofService(String name) {
        return serviceModels.getOrDefault(name, Set.of());
    }
}
