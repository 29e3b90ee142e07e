package dev.horizon.ray.gcs;

import dev.horizon.ray.demand.PlacementStrategy;
import dev.horizon.ray.gcs.proto.ClusterResourceState;
import dev.horizon.ray.gcs.proto.GangResourceRequest;
import dev.horizon.ray.gcs.proto.PlacementConstraint;
import dev.horizon.ray.gcs.proto.ResourceRequest;
import dev.horizon.ray.gcs.proto.ResourceRequestByCount;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One piece of demand a Ray cluster's GCS reports as pending, with a key that stays the same while the same demand
 * stays pending, so that each poll maps it to the same scheduler job.
 */
public sealed interface PendingDemand {
    /** "shape CPU=1,GPU=0.5" for tasks and actors, "pg 1a2b..." for a placement group. */
    String key();

    /** {@code count} tasks or actors waiting for {@code shape}; the shape is the key, so a changed count is the same demand. */
    record Tasks(String key, Map<String, Double> shape, int count) implements PendingDemand {
    }

    /** A placement group waiting for its unplaced bundles, all or none. */
    record Gang(String key, String placementGroupId, List<Map<String, Double>> bundles, PlacementStrategy strategy) implements PendingDemand {
    }

    /**
     * The pending demand of one {@code GetClusterResourceState} reply, as Ray's autoscaler v2 reads it: requests by
     * count (merged by shape; the GCS reports a shape once per label selector) and gang requests. A gang with no
     * bundle left is not demand: the GCS adds an empty entry for a placement group that is no longer pending.
     */
    static List<PendingDemand> of(ClusterResourceState state) {
        Map<String, Tasks> tasks = new LinkedHashMap<>();
        for (ResourceRequestByCount byCount : state.getPendingResourceRequestsList()) {
            if (byCount.getCount() <= 0) continue;
            Map<String, Double> shape = new TreeMap<>(byCount.getRequest().getResourcesBundleMap());
            String key = "shape " + text(shape);
            int count = (int) Math.min(Integer.MAX_VALUE, byCount.getCount());
            Tasks seen = tasks.get(key);
            tasks.put(key, new Tasks(key, shape, seen == null ? count : (int) Math.min(Integer.MAX_VALUE, (long) seen.count() + count)));
        }
        List<PendingDemand> demand = new ArrayList<>(tasks.values());
        for (GangResourceRequest gang : state.getPendingGangResourceRequestsList()) {
            // newer GCSes send the bundles in bundle_selectors too, and mean to drop the older requests field
            List<ResourceRequest> requests = gang.getBundleSelectorsCount() > 0
                    ? gang.getBundleSelectors(0).getResourceRequestsList() : gang.getRequestsList();
            if (requests.isEmpty()) continue;
            List<Map<String, Double>> bundles = requests.stream().<Map<String, Double>>map(r -> new TreeMap<>(r.getResourcesBundleMap())).toList();
            String id = placementGroupId(gang.getDetails());
            String key = id.isEmpty() ? "gang " + bundles.stream().map(PendingDemand::text).collect(Collectors.joining(" | ")) : "pg " + id;
            demand.add(new Gang(key, id, bundles, strategy(gang.getDetails(), requests.get(0))));
        }
        return demand;
    }

    /** The id in the GCS's details, "&lt;placement group id hex&gt;:&lt;STRATEGY&gt;|&lt;STATE&gt;"; empty when it is not in that form. */
    private static String placementGroupId(String details) {
        int colon = details.indexOf(':');
        return colon > 0 && details.substring(0, colon).matches("[0-9a-fA-F]+") ? details.substring(0, colon) : "";
    }

    /**
     * The strategy the details name; else what the placement constraints imply (the GCS gives STRICT_PACK bundles an
     * affinity and STRICT_SPREAD bundles an anti-affinity on the group's label), else PACK, which Horizon plans as
     * SPREAD is planned: a gang anywhere.
     */
    private static PlacementStrategy strategy(String details, ResourceRequest first) {
        int colon = details.indexOf(':');
        int bar = details.indexOf('|', colon + 1);
        if (colon > 0) {
            String named = details.substring(colon + 1, bar < 0 ? details.length() : bar);
            for (PlacementStrategy s : PlacementStrategy.values()) {
                if (s.name().equals(named)) return s;
            }
        }
        for (PlacementConstraint c : first.getPlacementConstraintsList()) {
            if (c.hasAffinity()) return PlacementStrategy.STRICT_PACK;
            if (c.hasAntiAffinity()) return PlacementStrategy.STRICT_SPREAD;
        }
        return PlacementStrategy.PACK;
    }

    private static String text(Map<String, Double> shape) {
        return shape.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }
}
