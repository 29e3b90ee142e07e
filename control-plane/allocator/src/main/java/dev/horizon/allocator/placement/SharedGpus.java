package dev.horizon.allocator.placement;

import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.api.mig.MigGeometry;
import dev.horizon.api.mig.MigLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The GPUs that hold fractional work or are set up for it: each GPU's MIG layout, the GPUs being re-partitioned (and
 * the layout each is getting), and the MIG instances and time-slicing shares each GPU holds. Whether a GPU is busy for
 * whole-GPU work is {@link Occupancy}'s business; this class only answers what a GPU could still give slices.
 */
final class SharedGpus {
    /** The shares each GPU holds (immutable lists), its MIG layout, and GPUs being re-partitioned. */
    private final Map<GpuRef, List<GpuShare>> held;
    private final Map<GpuRef, MigLayout> layouts;
    /** GPU being re-partitioned -> the layout it is getting. */
    private final Map<GpuRef, MigLayout> reconfiguring;

    SharedGpus() {
        this(new HashMap<>(), new HashMap<>(), new HashMap<>());
    }

    private SharedGpus(Map<GpuRef, List<GpuShare>> held, Map<GpuRef, MigLayout> layouts, Map<GpuRef, MigLayout> reconfiguring) {
        this.held = held;
        this.layouts = layouts;
        this.reconfiguring = reconfiguring;
    }

    SharedGpus copy() {
        return new SharedGpus(new HashMap<>(held), new HashMap<>(layouts), new HashMap<>(reconfiguring));
    }

    List<GpuShare> sharesOn(int node, int gpu) {
        return held.getOrDefault(new GpuRef(node, gpu), List.of());
    }

    MigLayout layout(int node, int gpu) {
        return layouts.get(new GpuRef(node, gpu));
    }

    boolean hasLayout(int node, int gpu) {
        return layouts.containsKey(new GpuRef(node, gpu));
    }

    /** Sets the layout (an empty one turns MIG off); returns whether the GPU is now partitioned. */
    boolean setLayout(int node, int gpu, MigLayout layout) {
        if (layout.slots().isEmpty()) {
            layouts.remove(new GpuRef(node, gpu));
            return false;
        }
        layouts.put(new GpuRef(node, gpu), layout);
        return true;
    }

    void startReconfiguring(int node, int gpu, MigLayout target) {
        reconfiguring.put(new GpuRef(node, gpu), target);
    }

    boolean isReconfiguring(int node, int gpu) {
        return reconfiguring.containsKey(new GpuRef(node, gpu));
    }

    MigLayout reconfiguringTo(int node, int gpu) {
        return reconfiguring.get(new GpuRef(node, gpu));
    }

    /** Ends a re-partitioning: the GPU loses its old layout; returns the one it was getting. */
    MigLayout finishReconfiguring(int node, int gpu) {
        GpuRef k = new GpuRef(node, gpu);
        MigLayout target = reconfiguring.remove(k);
        layouts.remove(k);
        return target;
    }

    boolean any() {
        return !held.isEmpty() || !layouts.isEmpty() || !reconfiguring.isEmpty();
    }

    /** Every GPU that holds slices, is partitioned or is being re-partitioned, in order. */
    List<GpuRef> gpus() {
        Set<GpuRef> gpus = new TreeSet<>(held.keySet());
        gpus.addAll(layouts.keySet());
        gpus.addAll(reconfiguring.keySet());
        return new ArrayList<>(gpus);
    }

    /**
     * Whether the share fits beside what the GPU holds now: a MIG instance its layout has and nobody holds, or a
     * time-slicing share within the GPU's compute (1000 milli) and memory; wholeFree: nothing else is on the GPU.
     */
    boolean fits(int node, int gpu, GpuShare share, boolean wholeFree, long gpuMemoryMiB) {
        List<GpuShare> on = sharesOn(node, gpu);
        MigLayout layout = layout(node, gpu);
        if (share.isMig()) {
            if (layout == null || !layout.slots().contains(new MigLayout.Slot(share.migProfile(), share.migStart()))) return false;
            return on.stream().noneMatch(h -> h.migStart() == share.migStart());
        }
        if (layout != null) return false;
        if (on.isEmpty()) return wholeFree && share.memoryMiB() <= gpuMemoryMiB;
        int milli = share.milli();
        long memory = share.memoryMiB();
        for (GpuShare h : on) {
            milli += h.milli();
            memory += h.memoryMiB();
        }
        return milli <= 1000 && memory <= gpuMemoryMiB;
    }

    /** Of 1000: what a partitioned or shared GPU could still give fractional work; -1 when it is neither. */
    int freeMilli(int node, int gpu) {
        MigLayout layout = layout(node, gpu);
        List<GpuShare> on = sharesOn(node, gpu);
        if (layout != null) {
            int slices = 0;
            for (MigLayout.Slot s : layout.slots()) {
                if (on.stream().noneMatch(h -> h.migStart() == s.start())) slices += MigGeometry.of(layout.model()).profile(s.profile()).computeSlices();
            }
            return slices * 1000 / MigGeometry.COMPUTE_SLICES;
        }
        if (!on.isEmpty()) return 1000 - on.stream().mapToInt(GpuShare::milli).sum();
        return -1;
    }

    void add(int node, int gpu, GpuShare share) {
        List<GpuShare> on = new ArrayList<>(sharesOn(node, gpu));
        on.add(share);
        held.put(new GpuRef(node, gpu), List.copyOf(on));
    }

    /** Puts back the shares a GPU held (as {@link #sharesOn} read them): an undone release. */
    void restore(int node, int gpu, List<GpuShare> shares) {
        if (shares.isEmpty()) held.remove(new GpuRef(node, gpu));
        else held.put(new GpuRef(node, gpu), shares);
    }

    /** Removes the share; returns whether the GPU is now clear of slices, layout and re-partitioning. Null: not held. */
    Boolean remove(int node, int gpu, GpuShare share) {
        GpuRef k = new GpuRef(node, gpu);
        List<GpuShare> on = new ArrayList<>(sharesOn(node, gpu));
        if (!on.remove(share)) return null;
        if (!on.isEmpty()) {
            held.put(k, List.copyOf(on));
            return false;
        }
        held.remove(k);
        return !layouts.containsKey(k) && !reconfiguring.containsKey(k);
    }
}
