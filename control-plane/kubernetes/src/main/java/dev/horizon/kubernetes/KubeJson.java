package dev.horizon.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Small edits to Kubernetes objects held as JSON. */
public final class KubeJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private KubeJson() {
    }

    /** The named object field, created empty when it is missing (or not an object). */
    public static ObjectNode child(ObjectNode parent, String name) {
        return parent.get(name) instanceof ObjectNode o ? o : parent.putObject(name);
    }

    /** Removes the entries of a list of named objects (claims, resourceClaims) called name. */
    public static void removeNamed(ArrayNode list, String name) {
        for (int i = list.size() - 1; i >= 0; i--) {
            if (name.equals(list.get(i).path("name").asText())) list.remove(i);
        }
    }

    public static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
