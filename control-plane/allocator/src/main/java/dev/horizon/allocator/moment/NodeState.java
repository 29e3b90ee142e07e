package dev.horizon.allocator.moment;

import dev.horizon.allocator.model.GpuNode;
import dev.horizon.api.mig.MigLayout;
import dev.horizon.fractional.mig.MigPolicy;
import java.util.List;

/**
 * One node: what it is (model, GPUs, memory, NVLink domain), whether new work may land there, the MIG policy of its pool
 * (null: layouts stay as they are), each GPU's state, by index, and sharingPerNode: null where each GPU is time-sliced on
 * its own (the agent's sharing), else the time-slicing replicas the one config for all the node's whole GPUs has now
 * (Kubernetes' device-plugin mode; 0: exclusive), under which the node's shares all have one replica count.
 */
public record NodeState(GpuNode node, Health health, MigPolicy migPolicy, List<Gpu> gpus, Integer sharingPerNode) {

    /** READY takes new work; DRAINED (an admin drains it) and UNHEALTHY (its agent says so, or went silent) take none. */
    public enum Health { READY, DRAINED, UNHEALTHY }

    /**
     * One GPU: its MIG layout now (null: MIG off), the layout it is being re-partitioned to (null: not changing; an empty
     * layout turns MIG off), and whether it fell off the bus (LOST: it serves nothing again, and its node takes no new work).
     */
    public record Gpu(MigLayout layout, MigLayout changingTo, boolean lost) {
        public static final Gpu WHOLE = new Gpu(null, null, false);
    }

    public NodeState {
        gpus = List.copyOf(gpus);
        if (gpus.size() != node.gpus()) {
            throw new IllegalArgumentException("node " + node.name() + " has " + node.gpus() + " GPUs but " + gpus.size() + " GPU states");
        }
    }

    public NodeState(GpuNode node, Health health, MigPolicy migPolicy, List<Gpu> gpus) {
        this(node, health, migPolicy, gpus, null);
    }

    /** A ready node of whole GPUs. */
    public static NodeState ready(GpuNode node) {
        return new NodeState(node, Health.READY, null, java.util.Collections.nCopies(node.gpus(), Gpu.WHOLE));
    }

    /** Whether new work may land here: ready, and no GPU lost. */
    public boolean takesNewWork() {
        return health == Health.READY && gpus.stream().noneMatch(Gpu::lost);
    }
}
