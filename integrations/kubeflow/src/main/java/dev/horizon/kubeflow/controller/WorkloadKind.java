package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One kind the controller holds: its name in keys and sources ("PyTorchJob", "JobSet"), where the API server keeps it,
 * which of its objects are Horizon's to hold ({@code held}), and how an object of it is seen as a {@link HeldWorkload}.
 * Every kind goes through the same pass.
 */
record WorkloadKind(String name, ResourceDefinitionContext context, Predicate<JsonNode> held, Function<ObjectNode, HeldWorkload> wrap) {
    static ResourceDefinitionContext context(String group, String version, String kind, String plural) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind).withPlural(plural).withNamespaced(true)
                .build();
    }
}
