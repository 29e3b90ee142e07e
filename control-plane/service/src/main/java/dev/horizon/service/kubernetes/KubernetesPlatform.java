package dev.horizon.service.kubernetes;

import dev.horizon.api.integration.GpuMode;
import dev.horizon.service.nodes.NodeCommand;
import dev.horizon.service.nodes.NodePlatform;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;

/** The nodes' platform as Kubernetes (when horizon.kubernetes.enabled) tells it; off Kubernetes every answer is empty. */
@ApplicationScoped
public class KubernetesPlatform implements NodePlatform {
    @Inject
    KubernetesCluster cluster;
    @Inject
    GpuOperatorCommands gpuOperator;
    @Inject
    ResourceSliceInventory inventory;

    @Override
    public Optional<GpuMode> mode(String node) {
        return cluster.mode(node);
    }

    @Override
    public Optional<Integer> sharingReplicas(String node) {
        return cluster.sharingReplicas(node);
    }

    @Override
    public Optional<ResourceSliceCheck> resourceSlices(String node) {
        return inventory.of(node);
    }

    @Override
    public boolean appliesInsteadOfAgent(NodeCommand command) {
        return gpuOperator.takesOver(command);
    }

    @Override
    public boolean cordoned(String node) {
        return cluster.cordoned(node);
    }
}
