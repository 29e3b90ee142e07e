package dev.horizon.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One kind a reconciler holds: its name in keys ("PyTorchJob", "JobSet"), where the API server keeps it, which of its
 * objects are Horizon's to hold ({@code held}; the others are planned through the workload that controls them), and how
 * an object of it is seen as a {@link HeldWorkload}.
 */
public record WorkloadKind(String name, ResourceDefinitionContext context, Predicate<JsonNode> held, Function<ObjectNode, HeldWorkload> wrap) {
    /** A kind of which every object is Horizon's to hold. */
    public WorkloadKind(String name, ResourceDefinitionContext context, Function<ObjectNode, HeldWorkload> wrap) {
        this(name, context, o -> true, wrap);
    }

    /** Where the API server keeps a namespaced kind. */
    public static ResourceDefinitionContext context(String group, String version, String kind, String plural) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind).withPlural(plural).withNamespaced(true)
                .build();
    }
}
