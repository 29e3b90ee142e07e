package dev.horizon.kubernetes.dra;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether the devices NVIDIA's DRA driver publishes for a node agree with what Horizon's agent reads there through NVML.
 * They must: a claim selects devices by the UUIDs the agent reported, so a GPU one side lacks is one the plan may give
 * but no claim can get. A MIG instance agrees when the driver publishes it by its UUID or, under the driver's dynamic MIG,
 * as a possible instance of the same profile on the same GPU.
 */
public final class InventoryCheck {
    /** A GPU as the agent reports it, with its MIG instances. */
    public record AgentGpu(String uuid, List<AgentMig> migDevices) {
        public AgentGpu {
            migDevices = migDevices == null ? List.of() : List.copyOf(migDevices);
        }
    }

    public record AgentMig(String profile, String uuid) {
    }

    private InventoryCheck() {
    }

    /** One sentence per disagreement; empty when both sides list the same GPUs and MIG instances. */
    public static List<String> differences(List<AgentGpu> agent, List<DraDevice> published) {
        List<String> out = new ArrayList<>();
        Set<String> agentGpus = new HashSet<>();
        Set<String> agentMigs = new HashSet<>();
        for (AgentGpu g : agent) {
            agentGpus.add(g.uuid());
            if (published.stream().noneMatch(d -> g.uuid().equals(d.gpuUuid()))) {
                out.add(g.uuid() + ": the agent reports it, the DRA driver publishes no device for it");
            }
            for (AgentMig m : g.migDevices()) {
                agentMigs.add(m.uuid());
                if (published.stream().noneMatch(d -> d.mig() && (m.uuid().equals(d.uuid())
                        || d.uuid() == null && g.uuid().equals(d.parentUuid()) && m.profile().equals(d.profile())))) {
                    out.add(m.uuid() + " (" + m.profile() + " on " + g.uuid() + "): the agent reports it, the DRA driver does not publish it");
                }
            }
        }
        Set<String> unknownGpus = new HashSet<>();
        for (DraDevice d : published) {
            if (d.gpuUuid() != null && !agentGpus.contains(d.gpuUuid())) {
                if (unknownGpus.add(d.gpuUuid())) out.add(d.gpuUuid() + ": the DRA driver publishes it (device " + d.name() + "), the agent does not report it");
            } else if (d.mig() && d.uuid() != null && !agentMigs.contains(d.uuid())) {
                out.add(d.uuid() + " (" + d.profile() + " on " + d.parentUuid() + "): the DRA driver publishes it (device " + d.name()
                        + "), the agent does not report it");
            }
        }
        return out.stream().sorted().toList();
    }
}
