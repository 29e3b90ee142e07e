package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.integration.JobIntegration;
import dev.horizon.api.integration.JobWithOutcome;
import dev.horizon.api.integration.KubeObjects;
import java.util.Optional;

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
}
