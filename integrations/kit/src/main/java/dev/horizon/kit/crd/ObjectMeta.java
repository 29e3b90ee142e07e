package dev.horizon.kit.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The fields of Kubernetes' ObjectMeta as structural schemas, with the types the API server checks: a label or an
 * annotation is a string (an integer there is refused), ownerReferences and managedFields are lists of objects.
 */
final class ObjectMeta {
    private static final String STRING = "{\"type\":\"string\"}";
    private static final String STRING_MAP = "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}";
    private static final String INTEGER = "{\"type\":\"integer\"}";
    private static final String OBJECT_LIST = "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}";

    static final Map<String, JsonNode> FIELDS = Map.ofEntries(
            field("name", STRING), field("generateName", STRING), field("namespace", STRING), field("uid", STRING),
            field("resourceVersion", STRING), field("selfLink", STRING), field("generation", INTEGER),
            field("creationTimestamp", STRING), field("deletionTimestamp", STRING), field("deletionGracePeriodSeconds", INTEGER),
            field("labels", STRING_MAP), field("annotations", STRING_MAP), field("finalizers", "{\"type\":\"array\",\"items\":" + STRING + "}"),
            field("ownerReferences", OBJECT_LIST), field("managedFields", OBJECT_LIST));

    private ObjectMeta() {
    }

    private static Map.Entry<String, JsonNode> field(String name, String schema) {
        try {
            return Map.entry(name, new ObjectMapper().readTree(schema));
        } catch (java.io.IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
