package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.kit.JobIntegration;
import dev.horizon.kit.JobWithOutcome;
import dev.horizon.kubernetes.dra.DeviceClaims;
import java.util.Optional;
import java.util.Set;

/**
 * A workload the controller holds until planned, whatever its kind (a Kubeflow job, a batch Job or JobSet): the object
 * as JSON, which the controller writes back after each change, and what the last release did.
 */
public interface HeldWorkload extends JobIntegration, JobWithOutcome {
    ObjectNode object();

    /** What the last {@link #runOn} did, one part per pod template, for the event. */
    String released();

    default void setCondition(String type, boolean status, String reason, String message, String now) {
        KubeObjects.setCondition(object(), type, status, reason, message, now);
    }

    default Optional<JsonNode> condition(String type) {
        return KubeObjects.condition(object(), type);
    }

    /** The outcome the object's status conditions give: a True condition of one of {@code succeeded}, or Failed. */
    static Optional<Boolean> outcome(JsonNode object, Set<String> succeeded) {
        for (JsonNode c : object.path("status").path("conditions")) {
            if (!"True".equals(c.path("status").asText())) continue;
            String type = c.path("type").asText();
            if (succeeded.contains(type)) return Optional.of(true);
            if ("Failed".equals(type)) return Optional.of(false);
        }
        return Optional.empty();
    }

    /** The object as the owner of the claims made for it. */
    static DeviceClaims.Owner owner(JsonNode object, String kind) {
        JsonNode metadata = object.path("metadata");
        return new DeviceClaims.Owner(object.path("apiVersion").asText(), kind, metadata.path("namespace").asText(), metadata.path("name").asText(),
                metadata.path("uid").asText(null));
    }
}
