package dev.horizon.service.nodes;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.service.web.ApiTime;
import java.util.List;

/**
 * A GPU host. source is "agent" when an agent registered it, "config" when horizon.nodes declared it. health is
 * HEALTHY, UNHEALTHY (the planner gives it no new work; healthReason says why) or LOST (out of the cluster: its
 * agent has been silent for horizon.agents.heartbeat-timeout-seconds; healthReason says since when). pendingApproval: an
 * enrollment token that requires approval enrolled it, and no admin has approved it yet; the planner never places on it.
 * drainReason: why it is drained (null: not drained), by an admin until undrained, or as the store has none by the
 * platform it runs on ({@link NodePlatform#asSeen}: cordoned in Kubernetes); the planner gives it no new work and moves
 * work off it as each job's contract allows, whatever its health.
 */
public record Node(String name, String gpuModel, long gpuMemoryMiB, String nvlinkDomain, String source, String health,
                   String healthReason, @JsonSerialize(using = ApiTime.Millis.class) long lastSeen, List<Gpu> gpus, boolean pendingApproval,
                   String drainReason) {
    public static final String HEALTHY = "HEALTHY";
    public static final String UNHEALTHY = "UNHEALTHY";
    public static final String LOST = "LOST";
    public static final String FROM_AGENT = "agent";
    public static final String FROM_CONFIG = "config";

    /** A node as registered or declared: whether an admin drained it is the store's to say. */
    public Node(String name, String gpuModel, long gpuMemoryMiB, String nvlinkDomain, String source, String health, String healthReason,
                long lastSeen, List<Gpu> gpus, boolean pendingApproval) {
        this(name, gpuModel, gpuMemoryMiB, nvlinkDomain, source, health, healthReason, lastSeen, gpus, pendingApproval, null);
    }

    public boolean unhealthy() {
        return UNHEALTHY.equals(health);
    }

    public boolean drained() {
        return drainReason != null;
    }

    /** The node drained, for that reason. */
    public Node drainedFor(String reason) {
        return new Node(name, gpuModel, gpuMemoryMiB, nvlinkDomain, source, health, healthReason, lastSeen, gpus, pendingApproval, reason);
    }

    /** The node without its GPUs' processes, whose names and pids belong to whichever teams' jobs run there. */
    public Node withoutProcesses() {
        return new Node(name, gpuModel, gpuMemoryMiB, nvlinkDomain, source, health, healthReason, lastSeen, gpus.stream()
                .map(g -> new Gpu(g.index(), g.uuid(), g.model(), g.memoryMiB(), g.migMode(), g.migDevices(), g.health(), g.utilization(),
                        g.memoryUsedMiB(), java.util.List.of(), g.lastEvent())).toList(), pendingApproval, drainReason);
    }
}
