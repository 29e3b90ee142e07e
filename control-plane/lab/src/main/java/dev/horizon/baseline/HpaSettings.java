package dev.horizon.baseline;

/**
 * The two settings of a HorizontalPodAutoscaler that trade GPUs held for the service level: the target average
 * utilization (lower holds more headroom) and the scale-down stabilization window (longer holds a burst's GPUs longer).
 */
public record HpaSettings(double targetUtilization, long scaleDownStabilizationSeconds) {
    /** autoscaling/v2's defaults with the 70% target the Kubernetes and GPU-serving guides use. */
    public static final HpaSettings DEFAULT = new HpaSettings(0.7, 300);

    public HpaSettings {
        if (!(targetUtilization > 0 && targetUtilization <= 1)) {
            throw new IllegalArgumentException("HPA target utilization must be in (0, 1] (got " + targetUtilization + ")");
        }
        if (scaleDownStabilizationSeconds < 0) {
            throw new IllegalArgumentException("HPA scale-down stabilization must be >= 0 s (got " + scaleDownStabilizationSeconds + ")");
        }
    }
}
