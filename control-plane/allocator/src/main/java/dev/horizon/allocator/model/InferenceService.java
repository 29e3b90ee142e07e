package dev.horizon.allocator.model;

/**
 * A real-time inference service: elastic, one GPU a replica, following its demand curve.
 * swapCapGpus bounds how many GPUs it may gain or lose between two steps (model loading is slow).
 */
public record InferenceService(String name, String team, double weightPerGpuHour, int swapCapGpus) {
}
