package dev.horizon.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * `./horizon k8s-manifests --out DIR [--set key=value ...]`: writes the Helm chart with the values
 * given (DIR/chart/horizon) and the manifests it renders to (DIR/manifests, one object a file, in
 * apply order), after checking every value and parsing every object.
 */
public final class K8sManifestsCommand {
    static final String USAGE = "usage: ./horizon k8s-manifests --out DIR [--set KEY=VALUE ...]   (writes DIR/chart/horizon, a Helm chart,\n"
            + "       and DIR/manifests/*.yaml for kubectl apply; keys are those of the chart's values.yaml; tokens left empty are generated;\n"
            + "       a map or list value, such as agent.tolerations, takes JSON: --set 'agent.nodeSelector={\"gpu\":\"yes\"}')";
    private static final SecureRandom RANDOM = new SecureRandom();

    private K8sManifestsCommand() {
    }

    public static void main(String[] args) {
        int rc = run(List.of(args), System.out, System.err);
        if (rc != 0) System.exit(rc);
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        try {
            return write(args, out);
        } catch (IllegalArgumentException e) {
            err.println("horizon k8s-manifests: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("horizon k8s-manifests: cannot write: " + e.getMessage());
            return 1;
        }
    }

    private static int write(List<String> args, PrintStream out) throws IOException {
        Path dir = null;
        ChartValues values = Chart.defaults();
        List<String> set = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--help") || a.equals("-h")) {
                out.println(USAGE);
                out.println("       keys: " + String.join(", ", values.keys()));
                return 0;
            }
            if (!a.equals("--out") && !a.equals("--set")) throw new IllegalArgumentException("unknown option '" + a + "'; " + USAGE);
            if (i + 1 >= args.size()) throw new IllegalArgumentException(a + " needs a value");
            String v = args.get(++i);
            if (a.equals("--out")) {
                dir = Path.of(v);
                continue;
            }
            int eq = v.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("--set takes KEY=VALUE (got '" + v + "')");
            values = values.with(v.substring(0, eq), v.substring(eq + 1));
            set.add(v.substring(0, eq));
        }
        if (dir == null) throw new IllegalArgumentException("--out DIR is required; " + USAGE);
        for (String token : List.of("tokens.admin", "tokens.agent")) {
            if (!values.get(token).isEmpty()) continue;
            values = values.with(token, "hz_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes()));
            out.println("horizon k8s-manifests: " + token + " was empty: generated one (it is in the chart's values.yaml and the tokens Secret; keep "
                    + dir + " private)");
        }
        if (values.get("database.password").isEmpty()) {
            out.println("horizon k8s-manifests: database.password is empty: the control plane will connect to PostgreSQL without a password");
        }
        out.println("horizon k8s-manifests: values checked (" + (set.isEmpty() ? "defaults" : "set: " + String.join(", ", set)) + ")");

        Map<String, String> templates = Chart.templates();
        Map<String, HasMetadata> objects = Chart.objects(templates, values);

        Path chart = dir.resolve("chart/horizon");
        Files.createDirectories(chart.resolve("templates"));
        Files.writeString(chart.resolve("Chart.yaml"), Chart.chartYaml(), StandardCharsets.UTF_8);
        Files.writeString(chart.resolve("values.yaml"), values.text(), StandardCharsets.UTF_8);
        for (Map.Entry<String, String> t : templates.entrySet()) {
            Files.writeString(chart.resolve("templates").resolve(t.getKey()), t.getValue(), StandardCharsets.UTF_8);
        }
        for (String file : Chart.FILES) {
            Files.createDirectories(chart.resolve(file).getParent());
            Files.writeString(chart.resolve(file), Chart.file(file), StandardCharsets.UTF_8);
        }
        out.println("horizon k8s-manifests: wrote the chart " + chart + " (Chart.yaml, values.yaml, " + templates.size() + " templates, "
                + Chart.FILES.size() + " files)");

        Path manifests = dir.resolve("manifests");
        Files.createDirectories(manifests);
        int index = 0;
        for (Map.Entry<String, String> t : templates.entrySet()) {
            HasMetadata object = objects.get(t.getKey());
            // numbered so that kubectl apply -f DIR/manifests creates identities and config before the workloads
            Path file = manifests.resolve(String.format("%02d-%s", ++index, t.getKey()));
            Files.writeString(file, Chart.render(t.getKey(), t.getValue(), values), StandardCharsets.UTF_8);
            out.println("horizon k8s-manifests: wrote " + file + " (" + object.getKind() + " " + object.getMetadata().getName() + ")");
        }
        Path operator = dir.resolve("prometheus-operator");
        Files.createDirectories(operator);
        Files.writeString(operator.resolve("horizon-prometheusrule.yaml"), Chart.prometheusRule(values.get("namespace")), StandardCharsets.UTF_8);
        out.println("horizon k8s-manifests: wrote " + operator.resolve("horizon-prometheusrule.yaml")
                + " (the alert rules as a PrometheusRule, for a Prometheus Operator; not among the manifests)");
        out.println("horizon k8s-manifests: done; kubectl create namespace " + values.get("namespace") + " && kubectl apply -f " + manifests
                + "   (or: helm install horizon " + chart + " -n " + values.get("namespace") + ")");
        return 0;
    }

    private static byte[] bytes() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return b;
    }
}
