package dev.horizon.kit.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;

/**
 * How the shipped schemas are cut from the CRDs: the whole openAPIV3Schema, less descriptions,
 * defaults and CEL rules, with every pod spec kept field by field only where Horizon reads
 * (containers' names, images and resources, and the nodeSelector) and its other fields left open. The API server checks
 * the rest when the job is created; a full pod spec would make each shipped schema about 250 KB.
 * Every adapter that ships CRD schemas cuts them this way, and its drift test checks them with this class.
 */
public final class SchemaExtraction {
    private static final Set<String> DROPPED = Set.of("description", "default", "x-kubernetes-validations", "x-kubernetes-list-map-keys",
            "x-kubernetes-list-type", "x-kubernetes-map-type");
    private static final Set<String> CONTAINER_FIELDS_KEPT = Set.of("name", "image", "resources");
    /** Pod spec fields kept whole besides the containers: Horizon reads the node selection for the GPU model. */
    private static final Set<String> POD_FIELDS_KEPT = Set.of("nodeSelector");

    private SchemaExtraction() {
    }

    public static JsonNode openApiSchema(JsonNode crd, String version) {
        for (JsonNode v : crd.path("spec").path("versions")) {
            if (version.equals(v.path("name").asText())) return v.path("schema").path("openAPIV3Schema");
        }
        throw new IllegalArgumentException("the CRD has no version " + version);
    }

    public static JsonNode trim(JsonNode schema) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        boolean podSpec = isPodSpec(schema);
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            if (DROPPED.contains(key)) continue;
            JsonNode value = e.getValue();
            if (key.equals("properties")) {
                ObjectNode props = out.putObject("properties");
                value.fields().forEachRemaining(p -> props.set(p.getKey(), podSpec ? podSpecField(p.getKey(), p.getValue()) : trim(p.getValue())));
            } else if (key.equals("required")) {
                // the API server fills defaults before it validates, so a required field with a default may be left out
                out.set(key, JsonNodeFactory.instance.arrayNode().addAll(StreamSupport.stream(value.spliterator(), false)
                        .filter(name -> !schema.path("properties").path(name.asText()).has("default")).toList()));
            } else if (key.equals("items") || key.equals("additionalProperties") && value.isObject()) {
                out.set(key, trim(value));
            } else if (key.equals("anyOf") || key.equals("allOf") || key.equals("oneOf")) {
                out.set(key, JsonNodeFactory.instance.arrayNode().addAll(StreamSupport.stream(value.spliterator(), false)
                        .map(SchemaExtraction::trim).toList()));
            } else {
                out.set(key, value);
            }
        }
        return out;
    }

    private static JsonNode podSpecField(String name, JsonNode schema) {
        if (POD_FIELDS_KEPT.contains(name)) return trim(schema);
        if (!name.equals("containers") && !name.equals("initContainers")) return open(schema);
        ObjectNode list = (ObjectNode) open(schema);
        ObjectNode container = list.putObject("items");
        container.put("type", "object");
        ObjectNode props = container.putObject("properties");
        schema.path("items").path("properties").fields().forEachRemaining(p ->
                props.set(p.getKey(), CONTAINER_FIELDS_KEPT.contains(p.getKey()) ? trim(p.getValue()) : open(p.getValue())));
        container.set("required", schema.path("items").path("required"));
        return list;
    }

    /** A field whose name is checked but whose content is left to the API server. */
    private static JsonNode open(JsonNode schema) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        if (schema.has("type")) out.set("type", schema.get("type"));
        if (schema.path("x-kubernetes-int-or-string").asBoolean()) out.put("x-kubernetes-int-or-string", true);
        if ("object".equals(schema.path("type").asText())) out.put("x-kubernetes-preserve-unknown-fields", true);
        return out;
    }

    private static boolean isPodSpec(JsonNode schema) {
        JsonNode props = schema.path("properties");
        return props.has("containers") && props.has("volumes") && props.has("restartPolicy");
    }
}
