package dev.horizon.service.nodes;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.api.integration.GpuMode;
import dev.horizon.service.web.ApiTime;
import java.util.List;
import java.util.Optional;

/**
 * What the platform the nodes run on says about them, for the code that knows nodes but not the platform: on Kubernetes,
 * a node's GPU mode, the last check of the DRA driver's ResourceSlices against its agent, and which commands the GPU
 * Operator applies instead of the agent. Off Kubernetes: no mode, no check, every command is the agent's.
 */
public interface NodePlatform {
    /** The last ResourceSlice check of a dra node: the devices the DRA driver publishes there, each disagreement, and when (epoch ms). */
    record ResourceSliceCheck(int publishedDevices, List<String> differences, @JsonSerialize(using = ApiTime.Millis.class) long checkedAt) {
    }

    Optional<GpuMode> mode(String node);

    /** In device-plugin mode: the time-slicing (or MPS) replicas the node's device plugin config has now; empty when none. */
    Optional<Integer> sharingReplicas(String node);

    Optional<ResourceSliceCheck> resourceSlices(String node);

    /** Whether the command is applied by the platform rather than streamed to the node's agent. */
    boolean appliesInsteadOfAgent(NodeCommand command);

    /** Whether the platform keeps new work off the node (Kubernetes: cordoned, spec.unschedulable). */
    boolean cordoned(String node);

    /** Why a cordoned node takes no new work, as its drain reason says it. */
    String CORDONED = "cordoned in Kubernetes (spec.unschedulable: kubectl cordon or drain); kubectl uncordon gives it work again";

    /** The node as the planner and the views take it: drained too where the platform cordoned it and no admin drained it here. */
    default Node asSeen(Node node) {
        return !node.drained() && cordoned(node.name()) ? node.drainedFor(CORDONED) : node;
    }
}
