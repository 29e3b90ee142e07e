package dev.horizon.simulation;

import dev.horizon.allocator.InferenceService;

/**
 * A real-time inference service and its demand in GPUs per step: history (before the window, what
 * the forecaster learns from) and window (what actually comes, hidden from planners until it has).
 */
public record ServiceDemand(InferenceService service, double[] history, double[] window) {
}
