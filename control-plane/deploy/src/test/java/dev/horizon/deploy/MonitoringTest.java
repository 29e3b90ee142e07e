package dev.horizon.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Grafana dashboard and the Prometheus alert rules the chart ships: where they land, what they read, that they work. */
class MonitoringTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern METRIC = Pattern.compile("\\b(horizon_[a-z_]+|DCGM_FI_[A-Z_]+)\\b");
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void theDashboardIsAConfigMapGrafanasSidecarLoadsAndTheRulesOneToMount() throws IOException {
        Map<String, HasMetadata> objects = Chart.objects(Chart.templates(), Chart.defaults().with("namespace", "gpu"));
        ConfigMap dashboard = (ConfigMap) objects.get("grafana-dashboard-configmap.yaml");
        assertEquals("1", dashboard.getMetadata().getLabels().get("grafana_dashboard"), "the label Grafana's dashboard sidecar watches");
        assertEquals("gpu", dashboard.getMetadata().getNamespace());
        assertEquals(JSON.readTree(Chart.file("files/horizon-dashboard.json")), JSON.readTree(dashboard.getData().get("horizon.json")),
                "the dashboard arrives whole, Grafana's {{label}} legends untouched by the renderer");
        ConfigMap rules = (ConfigMap) objects.get("prometheus-rules-configmap.yaml");
        assertEquals(YAML.readTree(Chart.file("files/horizon-alerts.yaml")), YAML.readTree(rules.getData().get("horizon-alerts.yaml")));
        JsonNode operator = YAML.readTree(Chart.prometheusRule("gpu"));
        assertEquals("PrometheusRule", operator.path("kind").asText());
        assertEquals("gpu", operator.path("metadata").path("namespace").asText());
        assertEquals(YAML.readTree(Chart.file("files/horizon-alerts.yaml")), operator.path("spec"));
    }

    @Test
    void theDashboardCoversWhatOperatorsWatch() throws IOException {
        JsonNode dashboard = JSON.readTree(Chart.file("files/horizon-dashboard.json"));
        Set<String> titles = new TreeSet<>();
        dashboard.path("panels").forEach(p -> titles.add(p.path("title").asText()));
        for (String wanted : List.of("GPU utilization", "Queue depth per team", "Owed vs delivered GPU-hours (7 days)", "Plan loop p99 by phase",
                "Leader", "Leader epoch", "Nodes by health", "MIG reconfigurations per hour", "Memory violations per hour", "Framebuffer memory used")) {
            assertTrue(titles.contains(wanted), "a panel '" + wanted + "' in " + titles);
        }
        for (String expr : expressions(dashboard)) {
            assertTrue(!expr.contains("quantile=\""), "percentiles come from histograms, not from the service: " + expr);
        }
    }

    /** A renamed or dropped metric would leave a panel or an alert silently empty. */
    @Test
    void everyMetricTheDashboardAndTheAlertsReadIsOneTheProgramsRegister() throws IOException {
        Set<String> registered = new TreeSet<>();
        for (Path sources : List.of(ROOT.resolve("control-plane/service/src/main/java"), ROOT.resolve("agent-native/src/main/java"))) {
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    Matcher m = Pattern.compile("\"" + METRIC.pattern() + "\"").matcher(Files.readString(f));
                    while (m.find()) registered.add(m.group(1));
                }
            }
        }
        List<String> read = new ArrayList<>(expressions(JSON.readTree(Chart.file("files/horizon-dashboard.json"))));
        YAML.readTree(Chart.file("files/horizon-alerts.yaml")).path("groups").forEach(g -> g.path("rules").forEach(r -> read.add(r.path("expr").asText())));
        Set<String> unknown = new TreeSet<>();
        for (String expr : read) {
            Matcher m = METRIC.matcher(expr);
            while (m.find()) {
                if (!registeredAs(m.group(1), registered)) unknown.add(m.group(1));
            }
        }
        assertEquals(Set.of(), unknown, "metrics read but registered nowhere (registered: " + registered + ")");
    }

    /** promtool (Debian's prometheus package) checks the rules, runs their unit tests, and parses every panel's query. */
    @Test
    void promtoolAcceptsTheRulesTheirTestsPassAndEveryPanelQueryParses() throws Exception {
        Path promtool = onPath("promtool");
        assumeTrue(promtool != null, "promtool not on PATH (apt-get install -y prometheus); the rules' unit tests are skipped");
        Files.writeString(dir.resolve("horizon-alerts.yaml"), Chart.file("files/horizon-alerts.yaml"));
        try (var tests = MonitoringTest.class.getResourceAsStream("/horizon-alerts-test.yaml")) {
            Files.write(dir.resolve("horizon-alerts-test.yaml"), tests.readAllBytes());
        }
        run(promtool, "check", "rules", "horizon-alerts.yaml");
        run(promtool, "test", "rules", "horizon-alerts-test.yaml");
        // the panels' queries as recording rules, Grafana's variables given values, so promtool parses each of them
        StringBuilder recording = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int i = 0;
        for (String expr : expressions(JSON.readTree(Chart.file("files/horizon-dashboard.json")))) {
            String concrete = expr.replace("$__rate_interval", "5m").replace("$team", ".*");
            recording.append("      - record: horizon:panel_").append(i++).append('\n').append("        expr: ")
                    .append(JSON.writeValueAsString(concrete)).append('\n');
        }
        Files.writeString(dir.resolve("dashboard-queries.yaml"), recording.toString());
        run(promtool, "check", "rules", "dashboard-queries.yaml");
    }

    private static boolean registeredAs(String name, Set<String> registered) {
        // Micrometer adds _seconds to timers, _total to counters, and _bucket/_count/_sum/_max to histograms
        String base = name.replaceAll("_(bucket|count|sum|max)$", "");
        return Stream.of(base, base.replaceAll("_total$", ""), base.replaceAll("_seconds$", "")).anyMatch(registered::contains);
    }

    private static List<String> expressions(JsonNode dashboard) {
        List<String> out = new ArrayList<>();
        dashboard.path("panels").forEach(p -> p.path("targets").forEach(t -> out.add(t.path("expr").asText())));
        return out;
    }

    private void run(Path tool, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(tool.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", args) + ":\n" + output);
    }

    private static Path onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(d, name);
            if (Files.isExecutable(candidate)) return candidate;
        }
        return null;
    }
}
