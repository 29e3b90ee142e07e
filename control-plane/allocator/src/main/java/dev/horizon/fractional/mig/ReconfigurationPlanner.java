package dev.horizon.fractional.mig;

import dev.horizon.api.mig.MigLayout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns wanted MIG layouts into reconfigurations a pool's policy allows: only on a GPU with no running work, only for
 * partitionable models, allowed profiles and dynamic layouts, and never more GPUs reconfiguring at once than the policy
 * permits. A reconfiguration is ready after the policy's drain time. Everything not started now says why.
 */
public final class ReconfigurationPlanner {
    private ReconfigurationPlanner() {
    }

    /** A re-partitioning started now; the GPU serves nothing until readyAt. */
    public record Reconfiguration(String gpuId, MigLayout from, MigLayout to, Instant readyAt) {
    }

    /** A wanted layout not started now, and why. */
    public record Deferred(String gpuId, MigLayout wanted, String reason) {
    }

    public record Plan(List<Reconfiguration> started, List<Deferred> deferred) {
    }

    public static Plan plan(MigPolicy policy, List<GpuState> gpus, Map<String, MigLayout> wanted, Instant now) {
        Map<String, GpuState> byId = new LinkedHashMap<>();
        for (GpuState g : gpus) byId.put(g.id(), g);
        int reconfiguring = (int) gpus.stream().filter(GpuState::reconfiguring).count();
        List<Reconfiguration> started = new ArrayList<>();
        List<Deferred> deferred = new ArrayList<>();
        for (Map.Entry<String, MigLayout> w : wanted.entrySet()) {
            GpuState gpu = byId.get(w.getKey());
            if (gpu == null) throw new IllegalArgumentException("no GPU '" + w.getKey() + "' in pool '" + policy.nodePool() + "'");
            String reason = refusal(policy, gpu, w.getValue(), reconfiguring + started.size());
            if (reason == null) {
                started.add(new Reconfiguration(gpu.id(), gpu.layout(), w.getValue(), now.plus(policy.drainTime())));
            } else if (!w.getValue().equals(gpu.layout())) {
                deferred.add(new Deferred(gpu.id(), w.getValue(), reason));
            }
        }
        return new Plan(started, deferred);
    }

    private static String refusal(MigPolicy policy, GpuState gpu, MigLayout wanted, int busySlots) {
        if (wanted.equals(gpu.layout())) return "already in this layout";
        if (!wanted.model().equals(gpu.model())) return "layout is for " + wanted.model() + " but the GPU is a " + gpu.model();
        if (!policy.partitionableModels().contains(gpu.model())) return gpu.model() + " is not partitionable in pool '" + policy.nodePool() + "'";
        if (policy.layout() == MigPolicy.Layout.FIXED) return "pool '" + policy.nodePool() + "' has a fixed MIG layout";
        for (MigLayout.Slot s : wanted.slots()) {
            if (!policy.allowedProfiles().contains(s.profile())) return "profile " + s.profile() + " is not allowed in pool '" + policy.nodePool() + "'";
        }
        if (gpu.reconfiguring()) return "already reconfiguring";
        if (gpu.runningTasks() > 0) return gpu.runningTasks() + " task(s) still run on it; it must drain first";
        if (busySlots >= policy.maxConcurrentReconfigurations()) {
            return "at most " + policy.maxConcurrentReconfigurations() + " GPU(s) may reconfigure at once in pool '" + policy.nodePool() + "'";
        }
        return null;
    }
}
