package dev.horizon.allocator.actions.allocate;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.InferenceReservation;
import dev.horizon.allocator.actions.Ranking;
import dev.horizon.allocator.actions.Session;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuRef;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The GPU x timestep room protected work may be planned in: the cluster minus the inference reservation (ramped for the
 * swap cap), minus inherited protected work until its estimated end, minus GPUs that hold slices. Fill work does not
 * count against it, except fill that now fits for its whole estimated run: that is promoted to protected.
 *
 * @param capacity  per step, GPUs protected work may still use
 * @param reserved  per step, the GPUs kept for inference, every service together (what capacity is short of the cluster
 *                  for inference; a wait reason names where it rises)
 * @param nodeFree  per node and step, GPUs free (step 0 as the occupancy has it, fill counted free; none on a drained node)
 * @param fill      running fill work, not promoted (promotions go into the session's decision)
 */
record ProtectedGrid(int[] capacity, int[] reserved, int[][] nodeFree, int[] nodeSizes, List<RunningJob> fill) {

    static ProtectedGrid of(Session session) {
        PlanningContext ctx = session.context();
        int h = ctx.horizonSteps();
        Cluster cluster = ctx.cluster();
        int nodes = cluster.nodes().size();
        int[] capacity = new int[h];
        Arrays.fill(capacity, cluster.totalGpus());
        int[] reserved = new int[h];
        for (PlanningContext.ServiceView view : ctx.services().values()) {
            int[] path = InferenceReservation.path(view, h);
            path[0] = Math.max(path[0], view.reservedGpus());
            for (int t = 0; t < h; t++) reserved[t] += Math.max(path[t], t == 0 ? view.heldGpus() : 0);
        }
        for (int t = 0; t < h; t++) capacity[t] -= reserved[t];
        int[] nodeSizes = new int[nodes];
        int[][] nodeFree = new int[nodes][h];
        for (int n = 0; n < nodes; n++) {
            nodeSizes[n] = cluster.nodes().get(n).gpus();
            Arrays.fill(nodeFree[n], nodeSizes[n]);
            nodeFree[n][0] = ctx.occupancy().freeOn(n);
        }
        List<RunningJob> fill = new ArrayList<>();
        for (RunningJob r : ctx.running()) {
            if (r.placement().shared()) continue; // counted per GPU below: several jobs share one
            if (r.fill()) {
                fill.add(r);
                for (Placement.Slice s : r.placement().slices()) nodeFree[s.node()][0] += s.count();
                continue;
            }
            hold(ctx, r, capacity, nodeFree, false);
        }
        if (ctx.occupancy().hasFractional()) reserveSharedGpus(ctx, capacity, nodeFree);
        // nothing new lands on a drained node, now or later in the horizon
        for (int n = 0; n < nodes; n++) if (ctx.occupancy().isDrained(n)) Arrays.fill(nodeFree[n], 0);
        Set<String> promoted = promoteFill(session, fill, capacity, nodeFree);
        fill.removeIf(r -> promoted.contains(r.id()));
        return new ProtectedGrid(capacity, reserved, nodeFree, nodeSizes, fill);
    }

    /** Inherited work holds its GPUs until its estimated end; fill promoted now also holds them in step 0. */
    private static void hold(PlanningContext ctx, RunningJob r, int[] capacity, int[][] nodeFree, boolean fromNow) {
        int end = Ranking.stepsUntil(ctx, r.estimatedEndSeconds(), capacity.length);
        for (int t = 0; t < end; t++) capacity[t] -= r.gpus();
        for (Placement.Slice s : r.placement().slices()) {
            if (fromNow) nodeFree[s.node()][0] -= s.count();
            for (int t = 1; t < end; t++) nodeFree[s.node()][t] -= s.count();
        }
    }

    /**
     * Fill work that now fits in protected capacity for its whole estimated run becomes protected, highest weight first;
     * each promotion goes into the decision at once, so the protected room the next one sees counts it.
     */
    private static Set<String> promoteFill(Session session, List<RunningJob> fill, int[] capacity, int[][] nodeFree) {
        PlanningContext ctx = session.context();
        List<RunningJob> byValue = new ArrayList<>(fill);
        byValue.sort(Comparator.comparingDouble(RunningJob::weight).reversed().thenComparingLong(RunningJob::startSeconds));
        Set<String> promoted = new HashSet<>();
        Session.ProtectedRoom room = session.protectedRoom();
        for (RunningJob r : byValue) {
            if (session.staysFill(r.id()) || session.onFillOnlyNodes(r.placement())) continue;
            int end = Ranking.stepsUntil(ctx, r.estimatedEndSeconds(), capacity.length);
            boolean fits = true;
            for (int t = 0; t < end && fits; t++) fits = capacity[t] >= r.gpus();
            // the grid does not count running work fair share re-weighted to fill, which stands protected until preempted
            if (!fits || !room.admits(r.placement())) continue;
            hold(ctx, r, capacity, nodeFree, true);
            promoted.add(r.id());
            session.decision().promote(r.id());
            room.promoted(r);
        }
        return promoted;
    }

    /**
     * GPUs that hold slices serve no whole-GPU work: a partitioned (or re-partitioning) GPU for the whole horizon, since
     * only a planned re-partitioning frees it; a time-shared GPU until the last share on it is estimated to end.
     */
    private static void reserveSharedGpus(PlanningContext ctx, int[] capacity, int[][] nodeFree) {
        int h = capacity.length;
        Map<GpuRef, Integer> ends = new HashMap<>();
        for (RunningJob r : ctx.running()) {
            if (!r.placement().shared()) continue;
            int end = Ranking.stepsUntil(ctx, r.estimatedEndSeconds(), h);
            for (Placement.Slice s : r.placement().slices()) ends.merge(new GpuRef(s.node(), s.firstGpu()), end, Math::max);
        }
        Occupancy o = ctx.occupancy();
        for (GpuRef gpu : o.fractionalGpus()) {
            int n = gpu.node(), g = gpu.gpu();
            int end = o.migLayout(n, g) != null || o.isReconfiguring(n, g) ? h : ends.getOrDefault(gpu, 1);
            for (int t = 0; t < end; t++) capacity[t]--;
            for (int t = 1; t < end; t++) nodeFree[n][t]--;
        }
    }
}
