package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobClass;
import java.util.Arrays;
import java.util.Locale;

/** The metadata every adapter reads from a manifest (as JSON), read one way everywhere. */
public final class Manifests {
    /** The label that says what class of work a workload is ("batch-inference"); each adapter has its default. */
    public static final String CLASS_LABEL = "horizon.dev/class";

    private Manifests() {
    }

    public static String apiVersion(JsonNode doc) {
        return doc.path("apiVersion").asText("");
    }

    public static String kind(JsonNode doc) {
        return doc.path("kind").asText("");
    }

    /** The group of the document's apiVersion. */
    public static String group(JsonNode doc) {
        return groupOf(apiVersion(doc));
    }

    /** The group of an apiVersion ("kubeflow.org" of "kubeflow.org/v1"); empty for the core group ("v1"). */
    public static String groupOf(String apiVersion) {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    public static String name(JsonNode doc) {
        return doc.path("metadata").path("name").asText("");
    }

    /** The prefix the API server completes into a name ("bert-" becomes "bert-x7k2p"); empty when none is given. */
    public static String generateName(JsonNode doc) {
        return doc.path("metadata").path("generateName").asText("");
    }

    /**
     * The name, or for a manifest made with generateName (as kubectl create accepts) its prefix without the trailing
     * dash: the job is only named when it is created, so until then the prefix stands for it.
     */
    public static String nameOrPrefix(JsonNode doc) {
        String name = name(doc);
        return name.isEmpty() ? generateName(doc).replaceAll("-+$", "") : name;
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

    /** "PyTorchJob ml/llama-sft" (the namespace only where the manifest gives one; "bert-" for a generateName). */
    public static String describe(JsonNode doc) {
        String ns = doc.path("metadata").path("namespace").asText("");
        String name = name(doc).isEmpty() ? generateName(doc) : name(doc);
        return doc.path("kind").asText("object") + " " + (ns.isEmpty() ? "" : ns + "/") + name;
    }

    /**
     * The warning a translation gives for a manifest made with generateName, or null when it has a name: the scheduler
     * job carries the prefix until the API server names the object.
     */
    public static String generateNameWarning(JsonNode doc) {
        if (!name(doc).isEmpty() || generateName(doc).isEmpty()) return null;
        return "metadata.generateName '" + generateName(doc) + "': the API server names the " + kind(doc) + " when it is created ("
                + generateName(doc) + "<random>); the scheduler job is named '" + nameOrPrefix(doc) + "' here, and the controller submits"
                + " it under the name it gets";
    }

    /** The class the {@link #CLASS_LABEL} label names, else {@code fallback}; a label naming no class is refused. */
    public static JobClass jobClass(JsonNode doc, JobClass fallback) {
        String label = label(doc, CLASS_LABEL);
        if (label == null) return fallback;
        try {
            return JobClass.valueOf(label.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new ManifestException("metadata.labels[" + CLASS_LABEL + "]: '" + label + "' is not one of "
                    + Arrays.stream(JobClass.values()).map(c -> c.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList());
        }
    }
}
