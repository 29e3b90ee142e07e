package dev.horizon.kubeflow.translate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads manifest files (YAML, several documents allowed) and the few metadata fields everything needs. */
public final class Manifests {
    private static final ObjectMapper YAML = new YAMLMapper();

    private Manifests() {
    }

    /** Every non-empty document of a YAML (or JSON) text. */
    public static List<JsonNode> parse(String text) {
        rejectHelmTemplate(text);
        List<JsonNode> docs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(text)) {
            while (it.hasNextValue()) {
                JsonNode doc = it.nextValue();
                if (doc == null || doc.isNull() || doc.isMissingNode()) continue;
                if (!doc.isObject()) throw new TranslationException("document " + (docs.size() + 1) + " is not a Kubernetes object (a YAML mapping)");
                docs.add(doc);
            }
        } catch (JsonProcessingException e) {
            throw new TranslationException("not valid YAML (line " + e.getLocation().getLineNr() + "): " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new TranslationException("cannot read the YAML: " + e.getMessage());
        }
        if (docs.isEmpty()) throw new TranslationException("holds no Kubernetes object");
        return docs;
    }

    /** Helm's {{ }} directives are not YAML; parsing them anyway would translate something the chart never renders. */
    private static void rejectHelmTemplate(String text) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].stripLeading().startsWith("#") && lines[i].contains("{{")) {
                throw new TranslationException("is a Helm chart template ('{{' on line " + (i + 1) + "), not a manifest; render it with"
                        + " helm template first");
            }
        }
    }

    public static Optional<KubeflowKind> kindOf(JsonNode doc) {
        return KubeflowKind.of(doc.path("apiVersion").asText(), doc.path("kind").asText());
    }

    public static String name(JsonNode doc) {
        return doc.path("metadata").path("name").asText("");
    }

    public static String namespace(JsonNode doc, String defaultNamespace) {
        String ns = doc.path("metadata").path("namespace").asText("");
        return ns.isEmpty() ? defaultNamespace : ns;
    }

    public static String label(JsonNode doc, String key) {
        return doc.path("metadata").path("labels").path(key).asText(null);
    }

    public static String annotation(JsonNode doc, String key) {
        return doc.path("metadata").path("annotations").path(key).asText(null);
    }

    /** "PyTorchJob ml/llama-sft" */
    public static String describe(JsonNode doc) {
        String ns = doc.path("metadata").path("namespace").asText("");
        return doc.path("kind").asText("object") + " " + (ns.isEmpty() ? "" : ns + "/") + name(doc);
    }
}
