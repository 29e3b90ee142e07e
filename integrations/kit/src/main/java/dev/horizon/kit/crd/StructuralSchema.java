package dev.horizon.kit.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

/**
 * Checks a manifest against a CRD's structural openAPIV3Schema the way the API server and kubectl's
 * strict field validation do: types (with x-kubernetes-int-or-string), required fields, enums,
 * bounds, patterns, and unknown fields wherever the schema does not preserve them. Null values count
 * as absent because the API server prunes them. CEL rules (x-kubernetes-validations) are left to the
 * API server: they need the old object and a CEL runtime. Shared by the adapters that check CRD manifests.
 */
public final class StructuralSchema {
    private final JsonNode root;

    public StructuralSchema(JsonNode openApiV3Schema) {
        this.root = openApiV3Schema;
    }

    /** A schema an adapter ships as a JSON resource beside {@code owner}; a missing one means the build is broken. */
    public static StructuralSchema fromResource(Class<?> owner, String resource) {
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("no schema is shipped at " + resource + "; the build is broken");
            return new StructuralSchema(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the shipped schema " + resource, e);
        }
    }

    /** Every problem, each starting with the field's path ("spec.pytorchReplicaSpecs[Worker].replicas"); empty when valid. */
    public List<String> problems(JsonNode document) {
        List<String> problems = new ArrayList<>();
        check(document, root, "", problems);
        return problems;
    }

    private static void check(JsonNode value, JsonNode schema, String path, List<String> problems) {
        if (value == null || value.isNull() || value.isMissingNode()) return;
        String where = path.isEmpty() ? "the manifest" : path;
        if (schema.has("anyOf") && !schema.path("x-kubernetes-int-or-string").asBoolean()) {
            boolean any = StreamSupport.stream(schema.get("anyOf").spliterator(), false).anyMatch(branch -> {
                List<String> inBranch = new ArrayList<>();
                check(value, branch, path, inBranch);
                return inBranch.isEmpty();
            });
            if (!any) problems.add(where + ": matches none of the allowed forms " + schema.get("anyOf"));
        }
        if (!typeMatches(value, schema)) {
            // a quantity such as cpu: 0.5 is a YAML number, which the API server refuses for int-or-string fields
            String hint = value.isNumber() && schema.path("x-kubernetes-int-or-string").asBoolean() ? " (quote it: '" + value.asText() + "')" : "";
            problems.add(where + ": must be " + expectedType(schema) + ", got " + describe(value) + hint);
            return;
        }
        checkScalar(value, schema, where, problems);
        if (value.isObject()) checkObject(value, schema, path, problems);
        if (value.isArray()) {
            int size = value.size();
            if (schema.has("minItems") && size < schema.get("minItems").asInt()) problems.add(where + ": needs at least " + schema.get("minItems") + " items");
            if (schema.has("maxItems") && size > schema.get("maxItems").asInt()) problems.add(where + ": allows at most " + schema.get("maxItems") + " items");
            if (schema.has("items")) {
                for (int i = 0; i < size; i++) check(value.get(i), schema.get("items"), path + "[" + i + "]", problems);
            }
        }
    }

    private static void checkObject(JsonNode value, JsonNode schema, String path, List<String> problems) {
        JsonNode properties = schema.path("properties");
        for (JsonNode required : schema.path("required")) {
            JsonNode field = value.get(required.asText());
            if (field == null || field.isNull()) problems.add(join(path, required.asText()) + ": is required");
        }
        // the root's metadata is ObjectMeta, which the API server checks itself; CRDs declare it as a bare object
        boolean open = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean() || path.equals("metadata");
        boolean objectMeta = path.equals("metadata") || isTemplateMetadata(path);
        boolean embedded = schema.path("x-kubernetes-embedded-resource").asBoolean();
        JsonNode additional = schema.get("additionalProperties");
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = field.getKey();
            // the API server prunes null values before it validates ("creationTimestamp: null", as kubectl get -o yaml prints)
            if (field.getValue().isNull()) continue;
            if (properties.has(name)) {
                check(field.getValue(), properties.get(name), join(path, name), problems);
            } else if (additional != null && additional.isObject()) {
                check(field.getValue(), additional, path + "[" + name + "]", problems);
            } else if (objectMeta && ObjectMeta.FIELDS.containsKey(name)) {
                check(field.getValue(), ObjectMeta.FIELDS.get(name), join(path, name), problems);
            } else if (!open && !(additional != null && additional.asBoolean()) && !(embedded && isResourceHeader(name))) {
                problems.add(join(path, name) + ": unknown field" + (properties.size() > 0 ? "; known fields here are " + names(properties) : ""));
            }
        }
    }

    private static void checkScalar(JsonNode value, JsonNode schema, String where, List<String> problems) {
        if (schema.has("enum")) {
            boolean listed = StreamSupport.stream(schema.get("enum").spliterator(), false).anyMatch(e -> e.equals(value));
            if (!listed) problems.add(where + ": " + value + " is not one of " + schema.get("enum"));
        }
        if (value.isNumber()) {
            if (schema.has("minimum") && value.asDouble() < schema.get("minimum").asDouble()) problems.add(where + ": must be at least " + schema.get("minimum") + ", got " + value);
            if (schema.has("maximum") && value.asDouble() > schema.get("maximum").asDouble()) problems.add(where + ": must be at most " + schema.get("maximum") + ", got " + value);
        }
        if (value.isTextual()) {
            String text = value.asText();
            if (schema.has("minLength") && text.length() < schema.get("minLength").asInt()) problems.add(where + ": must have at least " + schema.get("minLength") + " characters");
            if (schema.has("maxLength") && text.length() > schema.get("maxLength").asInt()) problems.add(where + ": must have at most " + schema.get("maxLength") + " characters");
            if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(text).find()) {
                problems.add(where + ": '" + text + "' does not match " + schema.get("pattern").asText());
            }
        }
    }

    private static boolean typeMatches(JsonNode value, JsonNode schema) {
        if (schema.path("x-kubernetes-int-or-string").asBoolean()) return value.isIntegralNumber() || value.isTextual();
        return switch (schema.path("type").asText("")) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            default -> true;
        };
    }

    private static String expectedType(JsonNode schema) {
        if (schema.path("x-kubernetes-int-or-string").asBoolean()) return "an integer or a string";
        String type = schema.path("type").asText();
        return switch (type) {
            case "object", "array", "integer" -> "an " + type;
            default -> "a " + type;
        };
    }

    private static String describe(JsonNode value) {
        String type = switch (value.getNodeType()) {
            case OBJECT -> "an object";
            case ARRAY -> "a list";
            case STRING -> "the string";
            case NUMBER -> "the number";
            case BOOLEAN -> "the boolean";
            default -> "";
        };
        return value.isValueNode() ? type + " " + value : type;
    }

    /**
     * A pod or job template's metadata: ObjectMeta, which controller-gen cuts down to five fields in a CRD, though the API
     * server takes every ObjectMeta field there (generateName, ownerReferences, managedFields, as kubectl get prints them).
     */
    private static boolean isTemplateMetadata(String path) {
        return path.endsWith("template.metadata") || path.endsWith("Template.metadata");
    }

    private static boolean isResourceHeader(String name) {
        return name.equals("apiVersion") || name.equals("kind") || name.equals("metadata");
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static List<String> names(JsonNode properties) {
        List<String> names = new ArrayList<>();
        properties.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
