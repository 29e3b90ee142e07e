package dev.horizon.baseline;

import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.NodeOrder;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.placement.SlicePlacer;
import java.util.List;

/**
 * Where a baseline puts a job, fractional work as the stock GPU stack exposes it. A MIG profile goes on a free instance of
 * a GPU's current layout (the GPU Operator's mixed strategy publishes nvidia.com/mig-3g.40gb and the like, which
 * kube-scheduler and Slurm's GRES place, but none of them re-partitions). A time-slice share goes beside other shares
 * only where the scheduler itself shares GPUs: KAI's gpu-fraction, a fraction of one GPU's memory without isolation.
 * Anything else takes whole GPUs, one per replica: a scheduler that cannot share still occupies the whole GPU (and the
 * job is still credited only its slice, see SimJob#askedOn).
 */
final class DevicePluginSlices {
    private DevicePluginSlices() {
    }

    /** Where j starts now on width GPUs (replicas for fractional work), or null; fractions: the scheduler shares GPUs (KAI). */
    static Placement place(PendingJob j, int width, Occupancy occupancy, NodeOrder order, boolean fractions) {
        SliceRequest r = j.slice();
        if (r != null && (r.isMig() || fractions)) {
            Placement slices = new SlicePlacer(List.of(j)).place(occupancy, j, !r.isMig()).placement();
            if (slices != null) return slices;
        }
        return occupancy.findBlock(width, j.rules(), order);
    }
}
