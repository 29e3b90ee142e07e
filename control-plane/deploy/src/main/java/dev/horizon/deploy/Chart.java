package dev.horizon.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Helm chart shipped in this module (resources chart/horizon) and the one renderer the manifests
 * come from. Templates use only {@code {{ .Values.a.b }}} and, alone on a line, {@code {{ .Files.Get "files/x" | indent N }}}
 * (a chart file as it is, every line indented by N, as Sprig's indent does) and {@code {{ toYaml .Values.a.b | indent N }}}
 * (a map or list value as YAML, indented the same way), which Helm renders the same way, so the chart installed by Helm
 * and the manifests written here are the same objects for the same values.
 */
public final class Chart {
    static final String ROOT = "chart/horizon/";
    /** The templates in the order they are applied: identities and config before the workloads that use them. */
    public static final List<String> TEMPLATES = List.of("control-plane-serviceaccount.yaml", "control-plane-clusterrole.yaml",
            "control-plane-clusterrolebinding.yaml", "gpu-operator-role.yaml", "gpu-operator-rolebinding.yaml", "mig-parted-configmap.yaml",
            "device-plugin-configmap.yaml", "control-plane-configmap.yaml", "agent-configmap.yaml", "database-secret.yaml",
            "tokens-secret.yaml", "control-plane-service.yaml", "control-plane-deployment.yaml", "control-plane-poddisruptionbudget.yaml",
            "agent-daemonset.yaml",
            "grafana-dashboard-configmap.yaml", "prometheus-rules-configmap.yaml");
    /** The chart's files that templates include: the Grafana dashboard and the Prometheus alert rules. */
    public static final List<String> FILES = List.of("files/horizon-dashboard.json", "files/horizon-alerts.yaml");
    private static final Pattern ACTION = Pattern.compile("\\{\\{(.*?)}}");
    private static final Pattern VALUE = Pattern.compile("\\s*\\.Values\\.([A-Za-z0-9_.]+)\\s*");
    private static final Pattern FILE = Pattern.compile("\\{\\{\\s*\\.Files\\.Get\\s+\"([^\"]+)\"\\s*\\|\\s*indent\\s+([0-9]+)\\s*}}");
    private static final Pattern TO_YAML = Pattern.compile("\\{\\{\\s*toYaml\\s+\\.Values\\.([A-Za-z0-9_.]+)\\s*\\|\\s*indent\\s+([0-9]+)\\s*}}");
    private static final KubernetesSerialization KUBE = new KubernetesSerialization();

    private Chart() {
    }

    public static String chartYaml() {
        return resource(ROOT + "Chart.yaml");
    }

    public static ChartValues defaults() {
        return ChartValues.parse(resource(ROOT + "values.yaml"));
    }

    /** Template name to its text, as shipped. */
    public static Map<String, String> templates() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : TEMPLATES) out.put(name, resource(ROOT + "templates/" + name));
        return out;
    }

    /** A chart file that templates include, as shipped. */
    public static String file(String path) {
        if (!FILES.contains(path)) throw new IllegalArgumentException("the chart has no file " + path + "; it has " + FILES);
        return resource(ROOT + path);
    }

    /**
     * One template with every {{ .Values.key }} replaced, every {{ .Files.Get "path" | indent N }} line replaced by the
     * file and every {{ toYaml .Values.key | indent N }} line by the value as YAML; any other template action is an error
     * naming its line.
     */
    public static String render(String name, String template, ChartValues values) {
        StringBuilder out = new StringBuilder();
        String[] lines = template.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher include = FILE.matcher(lines[i]);
            Matcher structured = TO_YAML.matcher(lines[i]);
            if (include.matches() || structured.matches()) {
                Matcher m = include.matches() ? include : structured;
                String text = include.matches() ? file(include.group(1)) : values.toYaml(structured.group(1));
                // Sprig's indent: the pad before the text and after every line break in it
                String pad = " ".repeat(Integer.parseInt(m.group(2)));
                out.append(pad).append(text.replace("\n", "\n" + pad));
                if (i < lines.length - 1) out.append('\n');
                continue;
            }
            Matcher m = ACTION.matcher(lines[i]);
            StringBuilder line = new StringBuilder();
            while (m.find()) {
                Matcher v = VALUE.matcher(m.group(1));
                if (!v.matches()) {
                    throw new IllegalArgumentException("template " + name + " line " + (i + 1) + ": only {{ .Values.key }} is supported, not {{"
                            + m.group(1) + "}} (a chart file or a map or list value comes in alone on a line: {{ .Files.Get \"files/NAME\" | indent N }},"
                            + " {{ toYaml .Values.KEY | indent N }})");
                }
                m.appendReplacement(line, Matcher.quoteReplacement(values.get(v.group(1))));
            }
            m.appendTail(line);
            out.append(line);
            if (i < lines.length - 1) out.append('\n');
        }
        return out.toString();
    }

    /** A rendered template as its Kubernetes object; a kind the fabric8 model does not know is an error. */
    public static HasMetadata parse(String name, String rendered) {
        HasMetadata object;
        try {
            object = KUBE.unmarshal(rendered, HasMetadata.class);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("template " + name + " does not render to a Kubernetes object: " + e.getMessage(), e);
        }
        if (object == null || object instanceof GenericKubernetesResource) {
            throw new IllegalArgumentException("template " + name + " renders to no known Kubernetes kind");
        }
        return object;
    }

    /** Every template rendered and parsed, in apply order: file name to object. */
    public static Map<String, HasMetadata> objects(Map<String, String> templates, ChartValues values) {
        Map<String, HasMetadata> out = new LinkedHashMap<>();
        templates.forEach((name, text) -> out.put(name, parse(name, render(name, text, values))));
        return out;
    }

    /**
     * The alert rules as a Prometheus Operator PrometheusRule in the namespace: the same groups as the rules ConfigMap,
     * for clusters whose Prometheus loads rules from PrometheusRule objects (its ruleSelector must match their labels).
     */
    public static String prometheusRule(String namespace) {
        try {
            ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
            ObjectNode rule = yaml.createObjectNode();
            rule.put("apiVersion", "monitoring.coreos.com/v1").put("kind", "PrometheusRule");
            ObjectNode metadata = rule.putObject("metadata").put("name", "horizon").put("namespace", namespace);
            metadata.putObject("labels").put("app.kubernetes.io/name", "horizon").put("app.kubernetes.io/component", "monitoring");
            rule.set("spec", yaml.readTree(file("files/horizon-alerts.yaml")));
            return "# Horizon's alert rules for the Prometheus Operator (the rules of the horizon-prometheus-rules ConfigMap).\n"
                    + yaml.writeValueAsString(rule);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String resource(String path) {
        try (InputStream in = Chart.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("the deploy module's resources lack " + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
