package dev.horizon.kubernetes.operator;

/** What became of a change Horizon asked the GPU Operator for on a node: applied, still going, or failed with the reason. */
public sealed interface Progress {
    record Applied() implements Progress {
    }

    record Waiting(String state) implements Progress {
    }

    record Failed(String reason) implements Progress {
    }
}
