package dev.horizon.service.jobs;

import dev.horizon.allocator.model.GpuShare;
import dev.horizon.api.integration.PlannedDevice;
import dev.horizon.service.nodes.CommandRequest;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.nodes.Gpu;
import dev.horizon.service.nodes.Node;
import dev.horizon.service.nodes.NodePlatform;
import dev.horizon.service.nodes.NodeStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A running job's placement as the devices an adapter claims or pins: each GPU of the placement with its UUID, a MIG
 * slice with its profile (and the instance's UUID once the agent reports it there), a time-slicing share with how its GPU
 * is shared (the newest SetSharing for it), and every device with its node's GPU mode. Nodes only horizon.nodes declared
 * have no UUIDs: their jobs get no devices and are pinned to nodes only.
 */
@ApplicationScoped
public class PlannedDevices {
    @Inject
    NodeStore nodes;
    @Inject
    CommandStore commands;
    @Inject
    NodePlatform platform;

    public List<PlannedDevice> of(JobRow job) {
        if (job.state() != JobState.RUNNING || job.placement() == null) return List.of();
        List<PlannedDevice> out = new ArrayList<>();
        // a node's sharing is read once for the job, however many of its shares (a RayCluster's actors) are on the node
        Map<String, Map<String, CommandRequest.SetSharing>> sharingByNode = new HashMap<>();
        for (Placements.Part part : Placements.parts(job.placement())) {
            Optional<Node> node = nodes.find(part.node()).filter(n -> Node.FROM_AGENT.equals(n.source()));
            if (node.isEmpty()) return List.of();
            for (int index = part.first(); index <= part.last(); index++) {
                Optional<Gpu> gpu = gpu(node.get(), index);
                if (gpu.isEmpty()) return List.of();
                out.add(device(node.get(), gpu.get(), part.share(), sharingByNode));
            }
        }
        return out;
    }

    private PlannedDevice device(Node node, Gpu gpu, GpuShare share, Map<String, Map<String, CommandRequest.SetSharing>> sharingByNode) {
        var mode = platform.mode(node.name()).orElse(null);
        if (share == null) return PlannedDevice.wholeGpu(node.name(), gpu.index(), gpu.uuid(), mode);
        if (share.isMig()) {
            String instance = gpu.migDevices() == null ? null : gpu.migDevices().stream()
                    .filter(d -> d.profile().equals(share.migProfile()) && Objects.equals(d.placementStart(), share.migStart()))
                    .map(Gpu.MigDevice::uuid).findFirst().orElse(null);
            return new PlannedDevice(node.name(), gpu.index(), gpu.uuid(), share.migProfile(), instance, null, null, mode);
        }
        return new PlannedDevice(node.name(), gpu.index(), gpu.uuid(), null, null, new PlannedDevice.Share(share.milli(), share.memoryMiB()),
                sharing(sharingByNode.computeIfAbsent(node.name(), commands::sharingByGpu).get(gpu.uuid())), mode);
    }

    /** How the GPU is shared: its newest SetSharing its agent did not fail (s), time-slicing between two when none was sent. */
    private static PlannedDevice.Sharing sharing(CommandRequest.SetSharing s) {
        if (s == null) return new PlannedDevice.Sharing("TIME_SLICING", 2, null, null);
        return new PlannedDevice.Sharing(s.mode(), s.replicas() == null ? 1 : s.replicas(), s.activeThreadPercentage(), s.memoryLimitMiB());
    }

    private static Optional<Gpu> gpu(Node node, int index) {
        return node.gpus().stream().filter(g -> g.index() == index).findFirst();
    }
}
