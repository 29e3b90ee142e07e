package dev.horizon.kit.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads a manifest file as kubectl does: YAML (or JSON), several documents allowed, empty ones ignored. What is not a
 * manifest (an unrendered template, broken YAML, a document that is no object) is refused in one line; the YAML
 * parser's own messages can span a page of parser events. Every adapter reads its files here.
 */
public final class ManifestFile {
    private static final YAMLMapper YAML = new YAMLMapper();
    /** Argo Workflows' group, and the kinds of its documents that carry parameters. */
    private static final Pattern ARGO_GROUP = Pattern.compile("(?m)^apiVersion:\\s*argoproj\\.io/");
    private static final Pattern ARGO_KIND = Pattern.compile("(?m)^kind:\\s*(\\w*Workflow\\w*)\\s*$");

    private ManifestFile() {
    }

    public static List<JsonNode> read(Path file) {
        return parse(text(file));
    }

    /** The text of a file, refused in one line when it is missing or unreadable. */
    public static String text(Path file) {
        if (!Files.isRegularFile(file)) throw new ManifestException("no such file");
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new ManifestException("cannot read it: " + e.getMessage());
        }
    }

    /**
     * Every non-empty document of a YAML (or JSON) text, each a Kubernetes object: with an apiVersion and a kind, which
     * kubectl refuses to apply a document without.
     */
    public static List<JsonNode> parse(String text) {
        List<JsonNode> docs = yamlObjects(text);
        for (int i = 0; i < docs.size(); i++) {
            if (Manifests.apiVersion(docs.get(i)).isEmpty() || Manifests.kind(docs.get(i)).isEmpty()) {
                throw new ManifestException((docs.size() > 1 ? "document " + (i + 1) : "the document") + " has no apiVersion and kind, so it is"
                        + " not a Kubernetes manifest (kubectl refuses it too); is it a tool's configuration file?");
            }
        }
        return docs;
    }

    /** Every non-empty document of a YAML (or JSON) text, each an object, whatever it describes (a configuration file). */
    public static List<JsonNode> yamlObjects(String text) {
        refuseTemplate(text);
        List<JsonNode> docs = new ArrayList<>();
        int index = 0;
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(text)) {
            while (it.hasNextValue()) {
                JsonNode doc = it.nextValue();
                index++;
                if (doc == null || doc.isNull() || doc.isMissingNode()) continue;
                if (!doc.isObject()) throw new ManifestException("document " + index + " is not a YAML mapping, so it is not a Kubernetes object");
                docs.add(doc);
            }
        } catch (JsonProcessingException e) {
            throw new ManifestException("not valid YAML (line " + e.getLocation().getLineNr() + "): " + problem(e));
        } catch (IOException e) {
            throw new ManifestException("cannot read the YAML: " + e.getMessage());
        }
        if (docs.isEmpty()) throw new ManifestException("holds no Kubernetes object");
        return docs;
    }

    /**
     * Helm's {{ }} directives are not YAML; parsing them anyway would read something no chart renders. Argo Workflows
     * write their own parameters the same way, in a real manifest that Argo fills when the workflow runs: that is named
     * for what it is.
     */
    private static void refuseTemplate(String text) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].stripLeading().startsWith("#") && lines[i].contains("{{")) {
                Matcher argo = ARGO_KIND.matcher(text);
                if (ARGO_GROUP.matcher(text).find() && argo.find()) {
                    throw new ManifestException("is an Argo " + argo.group(1) + " (argoproj.io; '{{' on line " + (i + 1) + " is an Argo parameter,"
                            + " filled when the workflow runs): Horizon does not plan Argo workflows; it plans the GPU workloads a step creates"
                            + " (a Job, a PyTorchJob) when they are submitted as their own manifests");
                }
                throw new ManifestException("is a Helm chart template ('{{' on line " + (i + 1) + "), not a manifest; render it with"
                        + " helm template first");
            }
        }
    }

    /** The parser's complaint in words: SnakeYAML's problem and context, else the first line of Jackson's message. */
    private static String problem(JsonProcessingException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException marked && marked.getProblem() != null) {
                return marked.getProblem() + (marked.getContext() != null ? " (" + marked.getContext() + ")" : "");
            }
        }
        String message = e.getOriginalMessage();
        // Jackson names the parser event it did not expect ("got this instead: <org.yaml.snakeyaml.events...>"); the user wrote no event
        return message.lines().findFirst().orElse(message).replaceAll(",? got this instead: <[^>]*>.*", "").strip();
    }
}
