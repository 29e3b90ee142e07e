package dev.horizon.allocator.placement;

/** Which of the nodes that could hold a block gets it. */
public enum NodeOrder {
    /** Pack: the fullest node that fits (fewest free GPUs), so emptier nodes stay whole for wider jobs. Horizon's order. */
    BEST_FIT,
    /** Spread: the node with the largest free fraction, kube-scheduler's default (NodeResourcesFit LeastAllocated). */
    LEAST_ALLOCATED
}
