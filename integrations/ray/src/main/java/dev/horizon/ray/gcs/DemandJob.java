package dev.horizon.ray.gcs;

import java.util.List;

/**
 * The scheduler job of one pending demand, as recorded on the RayCluster so a restarted adapter finds it again.
 *
 * @param count   for tasks and actors, how many were pending when it was submitted; 0 for a placement group
 * @param group   once Horizon placed it, the worker group scaled for it; null before
 * @param workers how many workers were added to that group
 * @param nodes   the nodes Horizon planned it on
 */
public record DemandJob(String id, int count, String group, int workers, List<String> nodes) {
    public DemandJob {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
    }

    static DemandJob submitted(String id, PendingDemand demand) {
        return new DemandJob(id, demand instanceof PendingDemand.Tasks t ? t.count() : 0, null, 0, List.of());
    }

    boolean scaled() {
        return group != null;
    }
}
