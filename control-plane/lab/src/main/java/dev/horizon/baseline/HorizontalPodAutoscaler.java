package dev.horizon.baseline;

import dev.horizon.allocator.PlanningContext;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Kubernetes' HorizontalPodAutoscaler (autoscaling/v2) with its defaults, one replica a GPU, sized each minute from
 * the demand observed in the minute before (GPUs busy serving, a Pods metric such as in-flight requests):
 * desired = ceil(current x utilization / target), unchanged while utilization / target is within the 0.1 tolerance;
 * scale-up at once; scale-down to the highest recommendation of the last 300 s (the stabilization window);
 * minReplicas 1. Target average utilization and stabilization window from {@link HpaSettings} (by default 0.7, the figure the
 * Kubernetes and GPU-serving guides use, and 300 s).
 * https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details
 */
final class HorizontalPodAutoscaler {
    static final double TOLERANCE = 0.1;
    static final int MIN_REPLICAS = 1;
    private final HpaSettings settings;

    private record Recommendation(long at, int replicas) {
    }

    private final Map<String, Deque<Recommendation>> history = new HashMap<>();

    HorizontalPodAutoscaler(HpaSettings settings) {
        this.settings = settings;
    }

    /** Replicas (GPUs) for the service now. */
    int replicas(String name, PlanningContext.ServiceView view, long now) {
        int current = view.heldGpus();
        double[] seen = view.observedMinutes();
        double busy = seen.length == 0 ? 0 : seen[seen.length - 1];
        int desired;
        if (current == 0) {
            desired = Math.max(MIN_REPLICAS, (int) Math.ceil(busy / settings.targetUtilization() - 1e-9));
        } else {
            double ratio = busy / current / settings.targetUtilization();
            desired = Math.abs(ratio - 1) <= TOLERANCE ? current : (int) Math.ceil(current * ratio - 1e-9);
        }
        desired = Math.max(MIN_REPLICAS, desired);
        Deque<Recommendation> recent = history.computeIfAbsent(name, k -> new ArrayDeque<>());
        recent.addLast(new Recommendation(now, desired));
        while (recent.peekFirst().at() < now - settings.scaleDownStabilizationSeconds()) recent.removeFirst();
        if (desired >= current) return desired;
        int stabilized = recent.stream().mapToInt(Recommendation::replicas).max().orElse(desired);
        return Math.min(current, stabilized);
    }
}
