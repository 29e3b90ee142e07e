package dev.horizon.service.nodes;

import java.util.List;

/** A GPU host. source is "agent" when an agent registered it, "config" when horizon.nodes declared it. */
public record Node(String name, String gpuModel, long gpuMemoryMiB, String nvlinkDomain, String source, String health, long lastSeen,
                   List<Gpu> gpus) {
    public static final String HEALTHY = "HEALTHY";
    public static final String LOST = "LOST";
}
