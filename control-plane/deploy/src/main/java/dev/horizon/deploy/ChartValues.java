package dev.horizon.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.horizon.api.integration.GpuModes;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chart's values: the text of values.yaml (comments kept, so the chart written out still explains
 * itself) with --set overrides applied in place, and every leaf checked by its rule. Only keys the
 * chart's values.yaml has can be set, with the type of their default. A structured value (a node selector,
 * tolerations, an affinity, a securityContext) is one leaf of the Kubernetes type it goes into, set as JSON (as
 * helm's --set-json sets it) and written by templates with toYaml.
 */
public final class ChartValues {
    /** What a value must look like, and the sentence that says so when it does not. */
    private record Rule(Predicate<String> accepts, String expected) {
    }

    /** The Kubernetes type a structured value goes into, and the sentence that says so when it does not fit. */
    private record Shape(TypeReference<?> type, String expected) {
    }

    private static final Pattern PLAIN = Pattern.compile("[^\"\\\\\\n\\r{}]*");
    private static final Pattern QUANTITY = Pattern.compile("[0-9]+(\\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?");
    private static final Pattern IMAGE = Pattern.compile("[a-z0-9][A-Za-z0-9._/:@-]*");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._~+/=-]*");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern LABEL_KEY = Pattern.compile("([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    private static final Map<String, Rule> RULES = new LinkedHashMap<>();
    private static final Map<String, Shape> SHAPES = Map.of(
            "controlPlane.podSecurityContext", new Shape(new TypeReference<PodSecurityContext>() { },
                    "a Kubernetes PodSecurityContext as JSON, such as {\"seccompProfile\":{\"type\":\"RuntimeDefault\"}}"),
            "controlPlane.securityContext", new Shape(new TypeReference<SecurityContext>() { },
                    "a Kubernetes container SecurityContext as JSON, such as {\"runAsNonRoot\":true,\"allowPrivilegeEscalation\":false}"),
            "controlPlane.affinity", new Shape(new TypeReference<Affinity>() { }, "a Kubernetes Affinity as JSON, or {} for none"),
            "agent.nodeSelector", new Shape(new TypeReference<Map<String, String>>() { },
                    "node labels and their values as JSON, such as {\"nvidia.com/gpu.present\":\"true\"}, or {} for every node"),
            "agent.tolerations", new Shape(new TypeReference<List<Toleration>>() { },
                    "a JSON list of Kubernetes tolerations, such as [{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]"),
            "agent.affinity", new Shape(new TypeReference<Affinity>() { }, "a Kubernetes Affinity as JSON, or {} for none"));

    static {
        RULES.put("namespace", new Rule(v -> DNS_LABEL.matcher(v).matches(),
                "a DNS label: lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit"));
        RULES.put("image.controlPlane", new Rule(v -> IMAGE.matcher(v).matches(), "an image reference such as registry/horizon/control-plane:0.1.0"));
        RULES.put("image.agent", new Rule(v -> IMAGE.matcher(v).matches(), "an image reference such as registry/horizon/agent:0.1.0"));
        RULES.put("image.pullPolicy", new Rule(v -> List.of("Always", "IfNotPresent", "Never").contains(v), "Always, IfNotPresent or Never"));
        RULES.put("controlPlane.replicas", new Rule(v -> Integer.parseInt(v) >= 1, "at least 1 (two or more for failover)"));
        RULES.put("controlPlane.plannerStepSeconds", new Rule(v -> Integer.parseInt(v) >= 1, "at least 1 second"));
        RULES.put("controlPlane.heartbeatTimeoutSeconds", new Rule(v -> Integer.parseInt(v) >= 1, "at least 1 second"));
        RULES.put("controlPlane.cpu", new Rule(v -> QUANTITY.matcher(v).matches(), "a Kubernetes CPU quantity such as 1 or 500m"));
        RULES.put("controlPlane.memory", new Rule(v -> QUANTITY.matcher(v).matches(), "a Kubernetes memory quantity such as 2Gi"));
        RULES.put("controlPlane.podDisruptionBudget.minAvailable", new Rule(v -> Integer.parseInt(v) >= 0,
                "0 or more (below controlPlane.replicas, or no node drain can evict a replica)"));
        RULES.put("database.url", new Rule(v -> v.startsWith("jdbc:postgresql://") && v.length() > "jdbc:postgresql://".length(),
                "a PostgreSQL JDBC URL, jdbc:postgresql://HOST:PORT/DATABASE (every replica shares it)"));
        RULES.put("database.user", new Rule(v -> !v.isBlank(), "a database user name"));
        RULES.put("database.password", new Rule(v -> true, "the database user's password"));
        RULES.put("tokens.admin", new Rule(v -> TOKEN.matcher(v).matches(), "letters, digits and ._~+/=- only"));
        RULES.put("tokens.agent", new Rule(v -> TOKEN.matcher(v).matches(), "letters, digits and ._~+/=- only"));
        RULES.put("tls.enabled", new Rule(v -> v.equals("true") || v.equals("false"), "true or false"));
        RULES.put("tls.secretName", new Rule(v -> v.matches("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?"),
                "a Secret name: lower-case letters, digits, '-' and '.', at most 253"));
        RULES.put("kubernetes.gpuMode", new Rule(ChartValues::gpuModes,
                "dra or device-plugin for every node, or POOL=MODE entries beside it, such as device-plugin,h200=dra"));
        RULES.put("kubernetes.nodePoolLabel", new Rule(v -> LABEL_KEY.matcher(v).matches(), "a node label key such as cloud.google.com/gke-nodepool"));
        RULES.put("gpuOperator.namespace", new Rule(v -> DNS_LABEL.matcher(v).matches(), "the GPU Operator's namespace, a DNS label"));
        RULES.put("gpuOperator.migPartedConfig", new Rule(v -> DNS_LABEL.matcher(v).matches(), "a ConfigMap name (a DNS label)"));
        RULES.put("gpuOperator.devicePluginConfig", new Rule(v -> DNS_LABEL.matcher(v).matches(), "a ConfigMap name (a DNS label)"));
        RULES.put("gpuOperator.migTimeoutSeconds", new Rule(v -> Integer.parseInt(v) >= 1, "at least 1 second"));
        RULES.put("agent.driverLibraryPath", new Rule(v -> v.startsWith("/"),
                "an absolute host path holding libnvidia-ml.so.1, such as /usr/lib/x86_64-linux-gnu"));
        RULES.put("agent.memoryGuardAction", new Rule(v -> v.equals("REPORT") || v.equals("KILL"), "REPORT or KILL"));
        RULES.put("agent.cpu", new Rule(v -> QUANTITY.matcher(v).matches(), "a Kubernetes CPU quantity such as 250m"));
        RULES.put("agent.memory", new Rule(v -> QUANTITY.matcher(v).matches(), "a Kubernetes memory quantity such as 512Mi"));
    }

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Block YAML as Helm's toYaml writes it: no document marker; strings quoted, so "true" stays a string. */
    private static final ObjectMapper TO_YAML = new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));
    /** Reads a structured value as its type without turning "true" into true or 1 into "1": Helm writes it as it is. */
    private static final ObjectMapper JSON = JsonMapper.builder().disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .withCoercionConfig(LogicalType.Textual, c -> c.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail).setCoercion(CoercionInputShape.Float, CoercionAction.Fail))
            .build();
    private final List<String> lines;
    private final Map<String, JsonNode> leaves;

    private ChartValues(String text) {
        this.lines = new ArrayList<>(List.of(text.split("\n", -1)));
        this.leaves = leaves(text);
        for (String key : leaves.keySet()) {
            if (!RULES.containsKey(key) && !SHAPES.containsKey(key)) throw new IllegalStateException("values.yaml key " + key + " has no rule in ChartValues");
        }
    }

    /** The values of a values.yaml text, each checked. */
    public static ChartValues parse(String text) {
        ChartValues values = new ChartValues(text);
        values.leaves.forEach(values::check);
        return values;
    }

    /** Every key that --set accepts, in the file's order. */
    public List<String> keys() {
        return List.copyOf(leaves.keySet());
    }

    /** A leaf's value as the templates print it. */
    public String get(String key) {
        JsonNode v = leaves.get(key);
        if (v == null) throw unknown(key);
        if (SHAPES.containsKey(key)) throw new IllegalArgumentException(key + " is a map or list: a template writes it with {{ toYaml .Values." + key + " | indent N }}");
        return v.asText();
    }

    /** A structured value as Helm's toYaml writes it: block YAML without the last line break. */
    public String toYaml(String key) {
        JsonNode v = leaves.get(key);
        if (v == null) throw unknown(key);
        if (!SHAPES.containsKey(key)) throw new IllegalArgumentException(key + " is one value: a template writes it with {{ .Values." + key + " }}");
        try {
            return TO_YAML.writeValueAsString(v).stripTrailing();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A key values.yaml does not have, named as the key it is (--set KEY=VALUE), not as a wrong value. */
    private IllegalArgumentException unknown(String key) {
        return new IllegalArgumentException("unknown key '" + key + "'; known: " + String.join(", ", keys()));
    }

    /** The same values with key set to value: an unknown key, a value of the wrong type or one its rule refuses is an error. */
    public ChartValues with(String key, String value) {
        JsonNode old = leaves.get(key);
        if (old == null) throw unknown(key);
        if (SHAPES.containsKey(key)) return withStructured(key, value);
        if (old.isIntegralNumber() && !value.matches("-?[0-9]{1,9}")) {
            throw new IllegalArgumentException(key + " must be a whole number (got '" + value + "')");
        }
        check(key, old.isIntegralNumber() ? YAML.getNodeFactory().numberNode(Integer.parseInt(value)) : YAML.getNodeFactory().textNode(value));
        int line = lineOf(key);
        Matcher m = Pattern.compile("^(\\s*[A-Za-z0-9]+:\\s*)(.*)$").matcher(lines.get(line));
        if (!m.matches()) throw new IllegalStateException("values.yaml line " + (line + 1) + " is not 'key: value'");
        List<String> edited = new ArrayList<>(lines);
        edited.set(line, m.group(1) + (old.isIntegralNumber() ? value : "\"" + value + "\""));
        return new ChartValues(String.join("\n", edited));
    }

    /** A structured value set from JSON: its block in values.yaml becomes one line, key: JSON (JSON is YAML too). */
    private ChartValues withStructured(String key, String json) {
        JsonNode value;
        try {
            value = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException(key + " must be " + SHAPES.get(key).expected() + " (got '" + json + "', which is not JSON)");
        }
        checkShape(key, value);
        int line = lineOf(key);
        String indent = lines.get(line).substring(0, lines.get(line).indexOf(lines.get(line).trim()));
        int end = line + 1;
        while (end < lines.size() && inBlock(lines.get(end), indent.length())) end++;
        List<String> edited = new ArrayList<>(lines.subList(0, line));
        edited.add(indent + key.substring(key.lastIndexOf('.') + 1) + ": " + value);
        edited.addAll(lines.subList(end, lines.size()));
        return new ChartValues(String.join("\n", edited));
    }

    /** Whether a line belongs to the block of a key indented by indent: deeper, or a list item at the key's own depth. */
    private static boolean inBlock(String line, int indent) {
        if (line.isBlank()) return false;
        int depth = line.length() - line.stripLeading().length();
        return depth > indent || depth == indent && line.stripLeading().startsWith("- ");
    }

    /** The values.yaml text, comments and all. */
    public String text() {
        return String.join("\n", lines);
    }

    private void check(String key, JsonNode v) {
        if (SHAPES.containsKey(key)) {
            checkShape(key, v);
            return;
        }
        String text = v.asText();
        if (!PLAIN.matcher(text).matches()) {
            throw new IllegalArgumentException(key + " may not hold quotes, backslashes, braces or line breaks (got '" + text + "')");
        }
        Rule rule = RULES.get(key);
        boolean ok;
        try {
            ok = rule.accepts().test(text);
        } catch (NumberFormatException e) {
            ok = false;
        }
        if (!ok) throw new IllegalArgumentException(key + " must be " + rule.expected() + " (got '" + text + "')");
    }

    /** A structured value must read as its Kubernetes type; a map where a list belongs, or a word where a map does, does not. */
    private static void checkShape(String key, JsonNode v) {
        Shape shape = SHAPES.get(key);
        try {
            JSON.convertValue(v, shape.type());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " must be " + shape.expected() + " (got '" + v + "')", e);
        }
    }

    private static boolean gpuModes(String value) {
        try {
            GpuModes.parse(value, GpuModes.DEFAULT_POOL_LABEL);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The line of a leaf: the path of keys, each found below its parent by indentation. */
    private int lineOf(String key) {
        String[] path = key.split("\\.");
        int from = 0, indent = 0;
        for (int depth = 0; depth < path.length; depth++) {
            Pattern p = Pattern.compile("^" + " ".repeat(indent) + Pattern.quote(path[depth]) + ":.*");
            int found = -1;
            for (int i = from; i < lines.size() && found < 0; i++) {
                if (p.matcher(lines.get(i)).matches()) found = i;
            }
            if (found < 0) throw new IllegalStateException("values.yaml has no line for " + key);
            from = found + 1;
            indent += 2;
            if (depth == path.length - 1) return found;
        }
        throw new IllegalStateException("empty key");
    }

    private static Map<String, JsonNode> leaves(String text) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException("values.yaml is not YAML: " + e.getMessage(), e);
        }
        Map<String, JsonNode> out = new LinkedHashMap<>();
        collect("", root, out);
        return out;
    }

    private static void collect(String prefix, JsonNode node, Map<String, JsonNode> out) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            if (e.getValue().isObject() && !SHAPES.containsKey(key)) collect(key, e.getValue(), out);
            else out.put(key, e.getValue());
        }
    }
}
