package dev.horizon.deploy;

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
 * come from. Templates use only {@code {{ .Values.a.b }}}, which Helm renders the same way, so the
 * chart installed by Helm and the manifests written here are the same objects for the same values.
 */
public final class Chart {
    static final String ROOT = "chart/horizon/";
    /** The templates in the order they are applied: identities and config before the workloads that use them. */
    public static final List<String> TEMPLATES = List.of("control-plane-serviceaccount.yaml", "control-plane-clusterrole.yaml",
            "control-plane-clusterrolebinding.yaml", "gpu-operator-role.yaml", "gpu-operator-rolebinding.yaml", "mig-parted-configmap.yaml",
            "device-plugin-configmap.yaml", "control-plane-configmap.yaml", "agent-configmap.yaml", "database-secret.yaml",
            "tokens-secret.yaml", "control-plane-service.yaml", "control-plane-deployment.yaml", "agent-daemonset.yaml");
    private static final Pattern ACTION = Pattern.compile("\\{\\{(.*?)}}");
    private static final Pattern VALUE = Pattern.compile("\\s*\\.Values\\.([A-Za-z0-9_.]+)\\s*");
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

    /** One template with every {{ .Values.key }} replaced; any other template action is an error naming its line. */
    public static String render(String name, String template, ChartValues values) {
        StringBuilder out = new StringBuilder();
        String[] lines = template.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = ACTION.matcher(lines[i]);
            StringBuilder line = new StringBuilder();
            while (m.find()) {
                Matcher v = VALUE.matcher(m.group(1));
                if (!v.matches()) {
                    throw new IllegalArgumentException("template " + name + " line " + (i + 1) + ": only {{ .Values.key }} is supported, not {{"
                            + m.group(1) + "}}");
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

    private static String resource(String path) {
        try (InputStream in = Chart.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("the deploy module's resources lack " + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
