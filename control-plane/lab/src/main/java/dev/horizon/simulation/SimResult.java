package dev.horizon.simulation;

import java.util.List;
import java.util.Map;

/**
 * A policy's run: every job segment, every (service, minute), the metrics computed from them, for each job still
 * waiting at the window's end the policy's last word on why, and the audit of the rules it kept.
 */
public record SimResult(String policy, List<Segment> segments, List<RtMinute> rtMinutes, PolicyMetrics metrics,
                        double[] utilizationPerStep, Map<String, String> waitingReasons, Audit.Report audit) {
}
