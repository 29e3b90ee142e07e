package dev.horizon.simulation;

import java.util.List;
import java.util.Map;

/**
 * A policy's run: every job segment, every (service, step), the metrics computed from them, and for
 * each job still waiting at the window's end the policy's last word on why.
 */
public record SimResult(String policy, List<Segment> segments, List<RtStep> rtSteps, PolicyMetrics metrics,
                        double[] utilizationPerStep, Map<String, String> waitingReasons) {
}
