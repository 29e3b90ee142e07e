package dev.horizon.experiment.openb;

/** Where a policy puts one task: a node and the GPUs on it (one GPU for a share, none for a CPU-only task). */
public record TaskPlacement(int node, int[] gpus) {
}
