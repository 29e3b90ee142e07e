package dev.horizon.api.integration;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code horizon.kubernetes.gpu-mode} setting: a mode for every node pool, where a node's pool is the value of its
 * {@code poolLabel} label (GKE's cloud.google.com/gke-nodepool, Karpenter's karpenter.sh/nodepool, or Horizon's own
 * horizon.dev/node-pool). Written as comma-separated {@code POOL=MODE} entries and at most one bare {@code MODE}, the mode of
 * nodes in no listed pool: {@code device-plugin,h200-dra=dra}. Without a bare mode, unlisted nodes are {@code device-plugin}
 * (the GPU Operator's default).
 */
public record GpuModes(GpuMode fallback, Map<String, GpuMode> byPool, String poolLabel) {
    public static final String SETTING = "horizon.kubernetes.gpu-mode";
    public static final String DEFAULT_POOL_LABEL = "horizon.dev/node-pool";

    public GpuModes {
        byPool = Map.copyOf(byPool);
    }

    /** Parses the setting; a bad entry is an error naming the setting, the entry and the form it must take. */
    public static GpuModes parse(String value, String poolLabel) {
        GpuMode fallback = null;
        Map<String, GpuMode> byPool = new LinkedHashMap<>();
        for (String entry : value.split(",")) {
            if (entry.isBlank()) continue;
            int eq = entry.indexOf('=');
            if (eq < 0) {
                if (fallback != null) throw new IllegalArgumentException(SETTING + ": two modes for nodes in no listed pool ('" + fallback.value()
                        + "' and '" + entry.trim() + "'); give one, and POOL=MODE for the pools that differ");
                fallback = GpuMode.parse(SETTING, entry);
                continue;
            }
            String pool = entry.substring(0, eq).trim();
            if (pool.isEmpty()) throw new IllegalArgumentException(SETTING + ": '" + entry.trim() + "' names no pool; write POOL=MODE, such as h200=dra");
            if (byPool.put(pool, GpuMode.parse(SETTING + " (pool " + pool + ")", entry.substring(eq + 1))) != null) {
                throw new IllegalArgumentException(SETTING + ": pool " + pool + " is listed twice");
            }
        }
        return new GpuModes(fallback == null ? GpuMode.DEVICE_PLUGIN : fallback, byPool, poolLabel);
    }

    /** The mode of a node with these labels. */
    public GpuMode of(Map<String, String> nodeLabels) {
        String pool = nodeLabels == null ? null : nodeLabels.get(poolLabel);
        return pool == null ? fallback : byPool.getOrDefault(pool, fallback);
    }
}
