package dev.horizon.kit;

/**
 * Optional extra for a {@link HeldWorkload} that can be held only before it first runs: a bare Pod, held by a scheduling
 * gate, which Kubernetes lets one remove but never add back. Preempted once running, it is deleted, as Kubernetes
 * evicts a pod, and its scheduler jobs are cancelled with it; whoever made it makes it again, gated, to run later.
 */
public interface JobHeldOnlyBeforeItRuns {
}
