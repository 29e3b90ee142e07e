package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The GPU models a pod spec's node selection pins it to, through a {@link GpuModelTable}: its {@code nodeSelector}
 * and its required node affinity, as the scheduler reads them (the selector and the affinity both hold; the affinity's
 * terms are alternatives, the expressions of a term all hold). Preferred affinity pins nothing.
 *
 * @param models   the models the pod may run on, or empty when its node selection pins no GPU model
 * @param warnings label values the table does not know, each naming the field and how to extend the table
 */
public record NodeSelection(Optional<List<String>> models, List<String> warnings) {
    public NodeSelection {
        warnings = List.copyOf(warnings);
    }

    /** The node selection of the pod spec at {@code path} ("spec.template.spec"). */
    public static NodeSelection of(JsonNode podSpec, String path, GpuModelTable table) {
        List<String> warnings = new ArrayList<>();
        Set<String> fromSelector = null;
        for (Iterator<Map.Entry<String, JsonNode>> it = podSpec.path("nodeSelector").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Set<String> models = lookUp(table, e.getKey(), List.of(e.getValue().asText()), path + ".nodeSelector[" + e.getKey() + "]", warnings);
            if (models != null) fromSelector = intersect(fromSelector, models);
        }
        String termsPath = path + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
        Set<String> fromAffinity = affinity(podSpec.path("affinity").path("nodeAffinity").path("requiredDuringSchedulingIgnoredDuringExecution")
                .path("nodeSelectorTerms"), termsPath, table, warnings);
        Set<String> models = fromSelector == null ? fromAffinity : fromAffinity == null ? fromSelector : intersect(fromSelector, fromAffinity);
        if (models != null && models.isEmpty()) {
            throw new ManifestException(path + ": its nodeSelector and required node affinity pin GPU models with none in common ("
                    + fromSelector + " and " + fromAffinity + "), so no node can run it");
        }
        return new NodeSelection(Optional.ofNullable(models).map(List::copyOf), warnings);
    }

    /**
     * The node selection of every GPU pod spec of one job (path to pod spec): the models all of them may run on, since
     * Horizon plans one set of models per job; a pod spec that pins none leaves the others' pin.
     */
    public static NodeSelection ofAll(Map<String, JsonNode> podSpecs, GpuModelTable table) {
        Set<String> models = null;
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<String, JsonNode> pod : podSpecs.entrySet()) {
            NodeSelection one = of(pod.getValue(), pod.getKey(), table);
            warnings.addAll(one.warnings());
            if (one.models().isEmpty()) continue;
            Set<String> before = models;
            models = intersect(models, new LinkedHashSet<>(one.models().get()));
            if (models.isEmpty()) {
                throw new ManifestException(pod.getKey() + ": pins GPU models " + one.models().get() + " but another pod of the job pins " + before
                        + "; Horizon plans one set of GPU models per job, so pin its pods alike");
            }
        }
        return new NodeSelection(Optional.ofNullable(models).map(List::copyOf), warnings);
    }

    /** The union over the terms; null when some term pins no model (a pod may then land on any GPU). */
    private static Set<String> affinity(JsonNode terms, String path, GpuModelTable table, List<String> warnings) {
        if (!terms.isArray() || terms.isEmpty()) return null;
        Set<String> union = new LinkedHashSet<>();
        for (int t = 0; t < terms.size(); t++) {
            Set<String> term = null;
            JsonNode expressions = terms.get(t).path("matchExpressions");
            for (int i = 0; i < expressions.size(); i++) {
                JsonNode expression = expressions.get(i);
                if (!"In".equals(expression.path("operator").asText())) continue;
                List<String> values = new ArrayList<>();
                expression.path("values").forEach(v -> values.add(v.asText()));
                Set<String> models = lookUp(table, expression.path("key").asText(), values, path + "[" + t + "].matchExpressions[" + i + "]", warnings);
                if (models != null) term = intersect(term, models);
            }
            if (term == null) return null;
            union.addAll(term);
        }
        return union;
    }

    /** The models any of the values selects; null when the label is no GPU pin or a value is unknown (any GPU). */
    private static Set<String> lookUp(GpuModelTable table, String key, List<String> values, String field, List<String> warnings) {
        if (!table.reads(key)) return null;
        Set<String> models = new LinkedHashSet<>();
        for (String value : values) {
            Optional<List<String>> known = table.models(key, value);
            if (known.isEmpty()) {
                if (table.namesGpus(key)) {
                    warnings.add(field + ": '" + value + "' of " + key + " is not in Horizon's GPU model table, so the job is planned on any GPU"
                            + " model; add it to the table (HORIZON_GPU_MODELS or --gpu-models FILE: labels: {" + key + ": {" + value + ": [MODEL]}})");
                }
                return null;
            }
            models.addAll(known.get());
        }
        return models;
    }

    private static Set<String> intersect(Set<String> a, Set<String> b) {
        if (a == null) return new LinkedHashSet<>(b);
        Set<String> out = new LinkedHashSet<>(a);
        out.retainAll(b);
        return out;
    }
}
