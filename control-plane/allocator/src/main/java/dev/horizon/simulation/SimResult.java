package dev.horizon.simulation;

import java.util.List;

/** A policy's run: every job segment, every (service, step), and the metrics computed from them. */
public record SimResult(String policy, List<Segment> segments, List<RtStep> rtSteps, PolicyMetrics metrics,
                        double[] utilizationPerStep) {
}
