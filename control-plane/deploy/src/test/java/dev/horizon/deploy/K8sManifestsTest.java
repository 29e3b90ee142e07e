package dev.horizon.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@EnableKubernetesMockClient(crud = true)
class K8sManifestsTest {
    KubernetesClient client;
    @TempDir
    Path out;

    private record Run(int rc, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
        int rc = K8sManifestsCommand.run(List.of(args), new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Run(rc, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    private List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.list(out.resolve("manifests"))) {
            return files.sorted().toList();
        }
    }

    @Test
    void renderedManifestsApplyToTheApiServerWithTheValuesGiven() throws IOException {
        Run r = run("--out", out.toString(), "--set", "controlPlane.replicas=3", "--set", "tokens.agent=agent-secret",
                "--set", "agent.driverLibraryPath=/run/nvidia/driver/usr/lib/x86_64-linux-gnu", "--set", "database.password=pw",
                "--set", "kubernetes.gpuMode=device-plugin,h200=dra");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.out().contains("tokens.admin was empty: generated one"), r.out());
        List<HasMetadata> applied = new ArrayList<>();
        for (Path file : manifests()) {
            try (InputStream in = Files.newInputStream(file)) {
                // the client's own YAML reader: each file is one object of a kind the fabric8 model knows
                List<HasMetadata> items = client.load(in).items();
                assertEquals(1, items.size(), file.toString());
                applied.add(client.resource(items.get(0)).create());
            }
        }
        assertEquals(Chart.TEMPLATES.size(), applied.size());

        Deployment cp = client.apps().deployments().inNamespace("horizon").withName("horizon-control-plane").get();
        assertEquals(3, cp.getSpec().getReplicas());
        Container server = cp.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(8080, server.getPorts().get(0).getContainerPort());
        assertProbe(server.getLivenessProbe(), "/q/health/live", "management");
        assertProbe(server.getReadinessProbe(), "/q/health/ready", "management");
        assertEquals(9000, server.getPorts().stream().filter(p -> p.getName().equals("management")).findFirst().orElseThrow().getContainerPort());
        assertEquals("horizon-control-plane", cp.getSpec().getTemplate().getSpec().getServiceAccountName());
        assertEquals("horizon-database", env(server, "HORIZON_DB_PASSWORD").getValueFrom().getSecretKeyRef().getName());
        assertEquals("horizon-tokens", env(server, "HORIZON_BOOTSTRAP_ADMIN_TOKEN").getValueFrom().getSecretKeyRef().getName());
        // the control plane stores the very token the agents present
        assertEquals(env(agentOf(client), "HORIZON_AGENT_TOKEN").getValueFrom().getSecretKeyRef(),
                env(server, "HORIZON_BOOTSTRAP_AGENT_TOKEN").getValueFrom().getSecretKeyRef());
        assertEquals("jdbc:postgresql://horizon-postgres:5432/horizon",
                client.configMaps().inNamespace("horizon").withName("horizon-control-plane").get().getData().get("HORIZON_DB_URL"));

        DaemonSet agents = client.apps().daemonSets().inNamespace("horizon").withName("horizon-agent").get();
        PodSpec pod = agents.getSpec().getTemplate().getSpec();
        assertEquals("true", pod.getNodeSelector().get("nvidia.com/gpu.present"));
        assertTrue(pod.getTolerations().stream().anyMatch(t -> t.getKey().equals("nvidia.com/gpu") && t.getOperator().equals("Exists")));
        assertTrue(pod.getHostPID());
        Container agent = pod.getContainers().get(0);
        assertTrue(agent.getSecurityContext().getPrivileged());
        assertProbe(agent.getReadinessProbe(), "/q/health/ready", "health");
        assertProbe(agent.getLivenessProbe(), "/q/health/live", "health");
        assertEquals(8081, agent.getPorts().stream().filter(p -> p.getName().equals("health")).findFirst().orElseThrow().getContainerPort());
        assertEquals("spec.nodeName", env(agent, "HORIZON_AGENT_NODE_NAME").getValueFrom().getFieldRef().getFieldPath());
        assertEquals("agent", env(agent, "HORIZON_AGENT_TOKEN").getValueFrom().getSecretKeyRef().getKey());
        assertEquals("/run/nvidia/driver/usr/lib/x86_64-linux-gnu",
                pod.getVolumes().stream().filter(v -> v.getName().equals("driver")).findFirst().orElseThrow().getHostPath().getPath());
        assertEquals("horizon-control-plane.horizon.svc",
                client.configMaps().inNamespace("horizon").withName("horizon-agent").get().getData().get("QUARKUS_GRPC_CLIENTS_CONTROL_PLANE_HOST"));

        Secret tokens = client.secrets().inNamespace("horizon").withName("horizon-tokens").get();
        assertEquals("agent-secret", tokens.getStringData().get("agent"));
        assertTrue(tokens.getStringData().get("admin").startsWith("hz_"));
        Service svc = client.services().inNamespace("horizon").withName("horizon-control-plane").get();
        assertEquals(8080, svc.getSpec().getPorts().get(0).getPort());

        ClusterRole role = client.rbac().clusterRoles().withName("horizon-control-plane").get();
        assertGrants(role, "kubeflow.org", "pytorchjobs", "update");
        assertGrants(role, "kubeflow.org", "mpijobs/status", "update");
        assertGrants(role, "ray.io", "rayclusters", "list");
        assertGrants(role, "ray.io", "rayjobs/status", "update");
        assertGrants(role, "", "pods", "watch");
        assertGrants(role, "", "events", "create");
        assertGrants(role, "coordination.k8s.io", "leases", "update");
        assertGrants(role, "resource.k8s.io", "resourceslices", "list");
        assertGrants(role, "resource.k8s.io", "resourceclaimtemplates", "create");
        assertGrants(role, "resource.k8s.io", "resourceclaims", "create");
        assertGrants(role, "", "nodes", "patch");
        assertEquals("horizon-control-plane", client.rbac().clusterRoleBindings().withName("horizon-control-plane").get().getSubjects().get(0).getName());

        // the GPU Operator's ConfigMaps: Horizon may change those two and nothing else in its namespace
        var configs = client.rbac().roles().inNamespace("gpu-operator").withName("horizon-gpu-configs").get().getRules().get(0);
        assertEquals(List.of("configmaps"), configs.getResources());
        assertEquals(List.of("horizon-mig-parted-config", "horizon-device-plugin-configs"), configs.getResourceNames());
        assertTrue(configs.getVerbs().contains("update"));
        assertEquals("horizon", client.rbac().roleBindings().inNamespace("gpu-operator").withName("horizon-gpu-configs").get().getSubjects().get(0)
                .getNamespace());
        assertTrue(client.configMaps().inNamespace("gpu-operator").withName("horizon-mig-parted-config").get().getData().get("config.yaml")
                .contains("all-disabled:"));
        assertTrue(client.configMaps().inNamespace("gpu-operator").withName("horizon-device-plugin-configs").get().getData().get("horizon-exclusive")
                .contains("migStrategy: mixed"));
        Map<String, String> env = client.configMaps().inNamespace("horizon").withName("horizon-control-plane").get().getData();
        assertEquals("true", env.get("HORIZON_KUBERNETES_ENABLED"));
        assertEquals("device-plugin,h200=dra", env.get("HORIZON_KUBERNETES_GPU_MODE"));
        assertEquals("gpu-operator", env.get("HORIZON_KUBERNETES_GPU_OPERATOR_NAMESPACE"));
    }

    /**
     * The ports the probes and Prometheus's annotations ask are the ones the programs serve on (their
     * application.properties). The control plane's annotation once named the API port, which serves no /q/metrics, so
     * the dashboard and the alert rules had no data from it.
     */
    @Test
    void probesAndScrapesAskThePortsTheProgramsServe() throws IOException {
        Path root = Path.of("../..").toAbsolutePath().normalize();
        Properties agent = properties(root.resolve("agent-native/src/main/resources/application.properties"));
        Properties service = properties(root.resolve("control-plane/service/src/main/resources/application.properties"));
        var objects = Chart.objects(Chart.templates(), Chart.defaults().with("tokens.admin", "a").with("tokens.agent", "b"));
        Container agentContainer = ((DaemonSet) objects.get("agent-daemonset.yaml")).getSpec().getTemplate().getSpec().getContainers().get(0);
        Container server = ((Deployment) objects.get("control-plane-deployment.yaml")).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(Integer.parseInt(agent.getProperty("quarkus.http.port")), agentContainer.getPorts().get(0).getContainerPort());
        assertEquals(Integer.parseInt(service.getProperty("quarkus.http.port")), server.getPorts().get(0).getContainerPort());
        assertEquals(Integer.parseInt(service.getProperty("quarkus.management.port")),
                server.getPorts().stream().filter(p -> p.getName().equals("management")).findFirst().orElseThrow().getContainerPort());
        assertEquals("true", service.getProperty("quarkus.management.enabled"), "health and metrics are on the management port, where the probes ask");
        DaemonSet agents = (DaemonSet) objects.get("agent-daemonset.yaml");
        Deployment cp = (Deployment) objects.get("control-plane-deployment.yaml");
        assertEquals(agent.getProperty("quarkus.http.port"), agents.getSpec().getTemplate().getMetadata().getAnnotations().get("prometheus.io/port"));
        assertEquals(service.getProperty("quarkus.management.port"), cp.getSpec().getTemplate().getMetadata().getAnnotations().get("prometheus.io/port"));
        // agents reach gRPC on the HTTP port only because the service does not run a separate gRPC server
        assertEquals("false", service.getProperty("quarkus.grpc.server.use-separate-server"));
    }

    /** The ConfigMaps the GPU Operator reads, kept in its namespace. */
    private static final List<String> GPU_OPERATOR_CONFIGS = List.of("mig-parted-configmap.yaml", "device-plugin-configmap.yaml");

    /** The chart written out, rendered again from its own files, gives exactly the manifests written beside it. */
    @Test
    void theChartWrittenRendersToTheManifestsWritten() throws IOException {
        assertEquals(0, run("--out", out.toString(), "--set", "namespace=gpu-sched", "--set", "image.agent=reg.example/agent:1.2",
                "--set", "agent.tolerations=[{\"operator\":\"Exists\"}]", "--set", "agent.nodeSelector={}").rc());
        Path chart = out.resolve("chart/horizon");
        ChartValues values = ChartValues.parse(Files.readString(chart.resolve("values.yaml")));
        assertEquals("gpu-sched", values.get("namespace"));
        List<Path> written = manifests();
        for (int i = 0; i < Chart.TEMPLATES.size(); i++) {
            String name = Chart.TEMPLATES.get(i);
            String rendered = Chart.render(name, Files.readString(chart.resolve("templates").resolve(name)), values);
            assertEquals(Files.readString(written.get(i)), rendered, name);
            // cluster-wide RBAC has no namespace; the GPU Operator's ConfigMaps and their Role live in its namespace; the rest in the one given
            String namespace = Chart.parse(name, rendered).getMetadata().getNamespace();
            String expected = name.startsWith("control-plane-clusterrole") ? null
                    : name.startsWith("gpu-operator-") || GPU_OPERATOR_CONFIGS.contains(name) ? "gpu-operator" : "gpu-sched";
            assertEquals(expected, namespace, name);
        }
        assertTrue(Files.readString(written.get(Chart.TEMPLATES.indexOf("agent-daemonset.yaml"))).contains("image: \"reg.example/agent:1.2\""));
        for (String file : Chart.FILES) assertEquals(Chart.file(file), Files.readString(chart.resolve(file)), "the chart carries " + file);
        assertTrue(Files.readString(chart.resolve("values.yaml")).contains("# PostgreSQL, shared by every replica"), "comments are kept");
        PodSpec agents = ((DaemonSet) Chart.parse("agent-daemonset.yaml", Files.readString(written.get(Chart.TEMPLATES.indexOf("agent-daemonset.yaml")))))
                .getSpec().getTemplate().getSpec();
        assertEquals("Exists", agents.getTolerations().get(0).getOperator(), "a list value set whole, its old items gone");
        assertEquals(Map.of(), agents.getNodeSelector());
    }

    /** Every template action is a value the chart has, every value is used, and every template file is rendered. */
    @Test
    void templatesUseOnlyTheChartsValuesAndUseThemAll() throws IOException {
        List<String> unused = new ArrayList<>(Chart.defaults().keys());
        var action = java.util.regex.Pattern.compile("\\{\\{\\s*(?:toYaml\\s+)?\\.Values\\.([A-Za-z0-9.]+)\\s*(?:\\|\\s*indent\\s+[0-9]+\\s*)?}}");
        for (String text : Chart.templates().values()) {
            var m = action.matcher(text);
            while (m.find()) {
                assertTrue(Chart.defaults().keys().contains(m.group(1)), m.group(0));
                unused.remove(m.group(1));
            }
        }
        assertEquals(List.of(), unused);
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/chart/horizon/templates"))) {
            assertEquals(Chart.TEMPLATES.stream().sorted().toList(), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    /**
     * What an infra team used to the GPU Operator's and KAI's charts looks for: the agents' node selection in values, a
     * control plane that runs as non-root on a read-only root with every place it writes mounted, and two replicas a
     * node drain cannot take down together nor one node's loss.
     */
    @Test
    void agentPlacementAndControlPlaneHardeningComeFromValues() {
        var objects = Chart.objects(Chart.templates(), Chart.defaults().with("tokens.admin", "a").with("tokens.agent", "b"));
        PodSpec agents = ((DaemonSet) objects.get("agent-daemonset.yaml")).getSpec().getTemplate().getSpec();
        assertEquals(Map.of("nvidia.com/gpu.present", "true"), agents.getNodeSelector());
        assertEquals(List.of(new TolerationBuilder().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule").build()),
                agents.getTolerations());

        Deployment cp = (Deployment) objects.get("control-plane-deployment.yaml");
        PodSpec pod = cp.getSpec().getTemplate().getSpec();
        assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
        Container server = pod.getContainers().get(0);
        var security = server.getSecurityContext();
        assertTrue(security.getRunAsNonRoot() && security.getRunAsUser() > 0, "a numeric non-root user the kubelet can check");
        assertFalse(security.getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), security.getCapabilities().getDrop());
        assertTrue(security.getReadOnlyRootFilesystem());
        // what the control plane writes: the JVM's temporary files and its data folder, each an emptyDir
        for (String written : List.of("/tmp", env(server, "HORIZON_DATA_DIR").getValue())) {
            String volume = server.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(written)).findFirst()
                    .orElseThrow(() -> new AssertionError("nothing mounted at " + written)).getName();
            assertTrue(pod.getVolumes().stream().anyMatch(v -> v.getName().equals(volume) && v.getEmptyDir() != null), written);
        }

        var spread = pod.getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution().get(0).getPodAffinityTerm();
        assertEquals("kubernetes.io/hostname", spread.getTopologyKey());
        assertEquals(cp.getSpec().getSelector().getMatchLabels(), spread.getLabelSelector().getMatchLabels());
        PodDisruptionBudget budget = (PodDisruptionBudget) objects.get("control-plane-poddisruptionbudget.yaml");
        assertEquals(1, budget.getSpec().getMinAvailable().getIntVal());
        assertEquals(cp.getSpec().getSelector(), budget.getSpec().getSelector());
    }

    /** Each of those is overridden as a whole, JSON with --set as helm's --set-json takes it, and a wrong shape is refused by name. */
    @Test
    void structuredValuesAreSetAsJsonAndCheckedAsTheirKubernetesType() {
        var objects = Chart.objects(Chart.templates(), Chart.defaults().with("tokens.admin", "a").with("tokens.agent", "b")
                .with("agent.nodeSelector", "{\"cloud.google.com/gke-accelerator\":\"nvidia-h100-80gb\"}").with("agent.tolerations", "[]")
                .with("agent.affinity", "{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":"
                        + "[{\"matchExpressions\":[{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"train\"]}]}]}}}")
                .with("controlPlane.affinity", "{}").with("controlPlane.securityContext", "{\"runAsNonRoot\":true}")
                .with("controlPlane.podDisruptionBudget.minAvailable", "0"));
        PodSpec agents = ((DaemonSet) objects.get("agent-daemonset.yaml")).getSpec().getTemplate().getSpec();
        assertEquals(Map.of("cloud.google.com/gke-accelerator", "nvidia-h100-80gb"), agents.getNodeSelector());
        assertEquals(List.of(), agents.getTolerations());
        assertEquals("pool", agents.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0)
                .getMatchExpressions().get(0).getKey());
        PodSpec cp = ((Deployment) objects.get("control-plane-deployment.yaml")).getSpec().getTemplate().getSpec();
        assertEquals(null, cp.getAffinity().getPodAntiAffinity());
        assertEquals(null, cp.getContainers().get(0).getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(0, ((PodDisruptionBudget) objects.get("control-plane-poddisruptionbudget.yaml")).getSpec().getMinAvailable().getIntVal());

        var map = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Chart.defaults().with("agent.tolerations", "{\"key\":\"nvidia.com/gpu\"}"));
        assertTrue(map.getMessage().startsWith("agent.tolerations must be a JSON list of Kubernetes tolerations"), map.getMessage());
        var bool = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Chart.defaults().with("agent.nodeSelector", "{\"nvidia.com/gpu.present\":true}"));
        assertTrue(bool.getMessage().startsWith("agent.nodeSelector must be node labels and their values as JSON"), "a label value is a string: " + bool.getMessage());
        var text = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Chart.defaults().with("controlPlane.affinity", "none"));
        assertTrue(text.getMessage().contains("which is not JSON"), text.getMessage());
    }

    /** tls.enabled switches the control plane to the mounted Secret's certificate and the agents to its CA, without a template condition. */
    @Test
    void tlsValuesReachTheControlPlaneAndTheAgents() {
        var objects = Chart.objects(Chart.templates(), Chart.defaults().with("tokens.admin", "a").with("tokens.agent", "b").with("tls.enabled", "true")
                .with("tls.secretName", "cp-cert"));
        PodSpec server = ((Deployment) objects.get("control-plane-deployment.yaml")).getSpec().getTemplate().getSpec();
        PodSpec agent = ((DaemonSet) objects.get("agent-daemonset.yaml")).getSpec().getTemplate().getSpec();
        var tls = server.getVolumes().stream().filter(v -> v.getName().equals("tls")).findFirst().orElseThrow().getSecret();
        assertEquals("cp-cert", tls.getSecretName());
        assertTrue(tls.getOptional(), "the chart installs before the Secret exists while TLS is off");
        assertEquals("/etc/horizon/tls", server.getContainers().get(0).getVolumeMounts().stream().filter(m -> m.getName().equals("tls")).findFirst()
                .orElseThrow().getMountPath());
        var ca = agent.getVolumes().stream().filter(v -> v.getName().equals("control-plane-ca")).findFirst().orElseThrow().getSecret();
        assertEquals("cp-cert", ca.getSecretName());
        assertEquals(List.of("ca.crt"), ca.getItems().stream().map(i -> i.getKey()).toList(), "agents get the CA, never the private key");
        var serverEnv = ((io.fabric8.kubernetes.api.model.ConfigMap) objects.get("control-plane-configmap.yaml")).getData();
        assertEquals("true", serverEnv.get("HORIZON_TLS_ENABLED"));
        assertEquals("/etc/horizon/tls", serverEnv.get("HORIZON_TLS_DIR"));
        var agentEnv = ((io.fabric8.kubernetes.api.model.ConfigMap) objects.get("agent-configmap.yaml")).getData();
        assertEquals("true", agentEnv.get("HORIZON_AGENT_CONTROL_PLANE_TLS"));
        assertEquals("/etc/horizon/ca/ca.crt", agentEnv.get("HORIZON_AGENT_CONTROL_PLANE_CA"));
        var bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Chart.defaults().with("tls.enabled", "yes"));
        assertTrue(bad.getMessage().contains("tls.enabled must be true or false"), bad.getMessage());
    }

    @Test
    void badValuesAreClearErrorsAndWriteNothing() throws IOException {
        Run negative = run("--out", out.toString(), "--set", "controlPlane.replicas=-1");
        assertEquals(2, negative.rc());
        assertTrue(negative.err().contains("controlPlane.replicas must be at least 1 (two or more for failover) (got '-1')"), negative.err());
        Run unknown = run("--out", out.toString(), "--set", "controlPlane.replica=2");
        assertEquals(2, unknown.rc());
        assertTrue(unknown.err().contains("unknown key 'controlPlane.replica'; known: namespace, image.controlPlane"), unknown.err());
        Run word = run("--out", out.toString(), "--set", "controlPlane.replicas=two");
        assertTrue(word.err().contains("controlPlane.replicas must be a whole number (got 'two')"), word.err());
        Run db = run("--out", out.toString(), "--set", "database.url=mysql://db/horizon");
        assertTrue(db.err().contains("database.url must be a PostgreSQL JDBC URL"), db.err());
        Run quote = run("--out", out.toString(), "--set", "database.password=a\"b");
        assertTrue(quote.err().contains("database.password may not hold quotes"), quote.err());
        Run mode = run("--out", out.toString(), "--set", "kubernetes.gpuMode=h200=mig");
        assertTrue(mode.err().contains("kubernetes.gpuMode must be dra or device-plugin for every node, or POOL=MODE entries beside it"), mode.err());
        Run noOut = run("--set", "controlPlane.replicas=2");
        assertTrue(noOut.err().contains("--out DIR is required"), noOut.err());
        Run noEquals = run("--out", out.toString(), "--set", "replicas");
        assertTrue(noEquals.err().contains("--set takes KEY=VALUE (got 'replicas')"), noEquals.err());
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(0, files.count(), "nothing is written when a value is refused");
        }
    }

    @Test
    void theRendererRefusesTemplateActionsHelmWouldRenderDifferently() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Chart.render("x.yaml", "a: 1\nname: {{ .Release.Name }}\n", Chart.defaults()));
        assertTrue(e.getMessage().contains("template x.yaml line 2: only {{ .Values.key }} is supported"), e.getMessage());
        assertFalse(Chart.render("y.yaml", "replicas: {{ .Values.controlPlane.replicas }}", Chart.defaults()).contains("{{"));
    }

    private static void assertProbe(Probe probe, String path, String port) {
        assertEquals(path, probe.getHttpGet().getPath());
        assertEquals(port, probe.getHttpGet().getPort().getStrVal());
    }

    private static Container agentOf(KubernetesClient client) {
        return client.apps().daemonSets().inNamespace("horizon").withName("horizon-agent").get().getSpec().getTemplate().getSpec().getContainers()
                .get(0);
    }

    private static EnvVar env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElseThrow(() -> new AssertionError("no env " + name));
    }

    private static void assertGrants(ClusterRole role, String group, String resource, String verb) {
        boolean granted = false;
        for (PolicyRule rule : role.getRules()) {
            granted |= rule.getApiGroups().contains(group) && rule.getResources().contains(resource) && rule.getVerbs().contains(verb);
        }
        assertTrue(granted, "ClusterRole grants " + verb + " on " + group + "/" + resource);
    }

    private static Properties properties(Path file) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        return p;
    }
}
