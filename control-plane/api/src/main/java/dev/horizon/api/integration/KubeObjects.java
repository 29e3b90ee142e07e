package dev.horizon.api.integration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * Edits that every adapter makes to the Kubernetes objects it holds, as JSON: pinning a pod template to the planned
 * nodes and keeping Horizon's status condition. Shared so that Kubeflow and Ray workloads are pinned the same way.
 */
public final class KubeObjects {
    public static final String HOSTNAME = "kubernetes.io/hostname";

    private KubeObjects() {
    }

    /**
     * Adds a required node affinity on kubernetes.io/hostname to every term the user already has (so their own node
     * constraints still hold); the hostname constraint is Horizon's, so a previous plan's is replaced, not narrowed.
     */
    public static void pin(ObjectNode podSpec, List<String> nodes) {
        ObjectNode required = child(child(child(podSpec, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution");
        ArrayNode terms = required.withArray("nodeSelectorTerms");
        if (terms.isEmpty()) terms.addObject();
        for (JsonNode term : terms) {
            ArrayNode expressions = ((ObjectNode) term).withArray("matchExpressions");
            for (int i = expressions.size() - 1; i >= 0; i--) {
                if (HOSTNAME.equals(expressions.get(i).path("key").asText())) expressions.remove(i);
            }
            ObjectNode hostname = expressions.addObject().put("key", HOSTNAME).put("operator", "In");
            nodes.forEach(hostname.putArray("values")::add);
        }
    }

    /** Sets (or replaces) one status condition, as Kubernetes conventions shape them. */
    public static void setCondition(ObjectNode object, String type, boolean status, String reason, String message, String now) {
        ArrayNode conditions = child(object, "status").withArray("conditions");
        for (int i = conditions.size() - 1; i >= 0; i--) {
            if (type.equals(conditions.get(i).path("type").asText())) conditions.remove(i);
        }
        conditions.addObject().put("type", type).put("status", status ? "True" : "False").put("reason", reason).put("message", message)
                .put("lastTransitionTime", now).put("lastUpdateTime", now);
    }

    public static Optional<JsonNode> condition(JsonNode object, String type) {
        for (JsonNode c : object.path("status").path("conditions")) {
            if (type.equals(c.path("type").asText())) return Optional.of(c);
        }
        return Optional.empty();
    }

    /** The named object field, created empty when it is missing (or not an object). */
    public static ObjectNode child(ObjectNode parent, String name) {
        return parent.get(name) instanceof ObjectNode o ? o : parent.putObject(name);
    }
}
