package dev.horizon.kubernetes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;

/** Small edits to Kubernetes objects held as JSON, beside the adapters' shared ones in {@link dev.horizon.api.integration.KubeObjects}. */
public final class KubeJson {
    private static final ObjectMapper JSON = new ObjectMapper();

    private KubeJson() {
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
