package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which GPU models a node label value selects: the one table every adapter reads node selection through, shipped as
 * {@code gpu-models.yaml} beside this class and extended by an admin's file of the same form, whose entries win.
 *
 * @param labels        label key to value to models; every value of these labels names a GPU model
 * @param instanceTypes {@value #INSTANCE_TYPE} values of GPU instances to their models; other instance types pin no GPU
 */
public record GpuModelTable(Map<String, Map<String, List<String>>> labels, Map<String, List<String>> instanceTypes) {
    public static final String INSTANCE_TYPE = "node.kubernetes.io/instance-type";
    /** NVIDIA's feature discovery label, whose values carry a suffix for time-slicing and the single MIG strategy. */
    static final String GFD_PRODUCT = "nvidia.com/gpu.product";
    private static final String FORM = "the file has labels: {LABEL: {VALUE: [MODEL, ...]}} and instanceTypes: {TYPE: [MODEL, ...]}";
    private static final GpuModelTable SHIPPED = shipped();

    public GpuModelTable {
        labels = Map.copyOf(labels);
        instanceTypes = Map.copyOf(instanceTypes);
    }

    public static GpuModelTable defaults() {
        return SHIPPED;
    }

    /** The shipped table, extended by the admin's file at {@code file} (null for none); a problem names {@code option}. */
    public static GpuModelTable configured(String file, String option) {
        if (file == null) return SHIPPED;
        try {
            return SHIPPED.extendedBy(ManifestFile.yamlObjects(ManifestFile.text(Path.of(file))).get(0));
        } catch (ManifestException e) {
            throw new ManifestException(option + " " + file + ": " + e.getMessage());
        }
    }

    /** Whether the label is one the table reads. */
    public boolean reads(String key) {
        return labels.containsKey(key) || key.equals(INSTANCE_TYPE);
    }

    /** The models a label's value selects; empty when the table does not know the value. */
    public Optional<List<String>> models(String key, String value) {
        if (key.equals(INSTANCE_TYPE)) return Optional.ofNullable(instanceTypes.get(value));
        Map<String, List<String>> values = labels.getOrDefault(key, Map.of());
        String product = key.equals(GFD_PRODUCT) ? value.replaceFirst("-SHARED$", "").replaceFirst("-MIG-\\d+g\\.\\d+gb$", "") : value;
        return Optional.ofNullable(values.get(product));
    }

    /** Whether a value the table does not know deserves a warning: every value of a GPU label names a model. */
    boolean namesGpus(String key) {
        return labels.containsKey(key);
    }

    private GpuModelTable extendedBy(JsonNode doc) {
        Map<String, Map<String, List<String>>> mergedLabels = new LinkedHashMap<>();
        labels.forEach((k, v) -> mergedLabels.put(k, new LinkedHashMap<>(v)));
        Map<String, List<String>> mergedTypes = new LinkedHashMap<>(instanceTypes);
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> top = it.next();
            switch (top.getKey()) {
                case "labels" -> objectFields(top.getValue(), "labels").forEach((key, values) ->
                        mergedLabels.computeIfAbsent(key, k -> new LinkedHashMap<>()).putAll(valueModels(values, "labels[" + key + "]")));
                case "instanceTypes" -> mergedTypes.putAll(valueModels(top.getValue(), "instanceTypes"));
                default -> throw new ManifestException(top.getKey() + ": unknown field; " + FORM);
            }
        }
        return new GpuModelTable(mergedLabels, mergedTypes);
    }

    private static Map<String, List<String>> valueModels(JsonNode node, String field) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        objectFields(node, field).forEach((value, models) -> {
            String where = field + "[" + value + "]";
            if (!models.isArray() || models.isEmpty()) throw new ManifestException(where + ": must be a list of models such as [L4-24GB]; " + FORM);
            List<String> names = new ArrayList<>();
            for (JsonNode m : models) {
                if (!m.isTextual() || m.asText().isBlank()) throw new ManifestException(where + ": " + m + " is not a model name such as L4-24GB");
                names.add(m.asText().trim());
            }
            out.put(value, List.copyOf(names));
        });
        return out;
    }

    private static Map<String, JsonNode> objectFields(JsonNode node, String field) {
        if (!node.isObject()) throw new ManifestException(field + ": must be a map; " + FORM);
        Map<String, JsonNode> out = new LinkedHashMap<>();
        node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    private static GpuModelTable shipped() {
        try (InputStream in = GpuModelTable.class.getResourceAsStream("gpu-models.yaml")) {
            if (in == null) throw new IllegalStateException("gpu-models.yaml is not on the class path; the build is broken");
            return new GpuModelTable(Map.of(), Map.of()).extendedBy(ManifestFile.yamlObjects(new String(in.readAllBytes(), StandardCharsets.UTF_8)).get(0));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the shipped gpu-models.yaml", e);
        }
    }
}
