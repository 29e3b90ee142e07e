package dev.horizon.service.kubernetes;

import dev.horizon.api.integration.GpuMode;
import dev.horizon.api.integration.GpuModes;
import dev.horizon.kubernetes.dra.ResourceSlices;
import dev.horizon.kubernetes.operator.DevicePluginSharing;
import dev.horizon.kubernetes.operator.MigManager;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The Kubernetes cluster the control plane runs in, when {@code horizon.kubernetes.enabled} (the chart sets it): the
 * client (the pod's service account, or {@code horizon.kubernetes.master-url}), each node's GPU mode from its pool label
 * and {@code horizon.kubernetes.gpu-mode}, and the GPU Operator's and the DRA driver's objects. Off Kubernetes (bare metal,
 * the demo) nodes have no GPU mode and their agents enforce everything through NVML and MPS.
 */
@ApplicationScoped
public class KubernetesCluster {
    private static final Logger LOG = Logger.getLogger(KubernetesCluster.class);
    /** How long node labels (hence GPU modes) are reused before they are listed again. */
    private static final Duration LABELS_FRESH = Duration.ofSeconds(30);
    private static final Duration NEW_NODE_RELIST = Duration.ofSeconds(1);

    @ConfigProperty(name = "horizon.kubernetes.enabled", defaultValue = "false")
    boolean enabled;
    @ConfigProperty(name = "horizon.kubernetes.master-url")
    Optional<String> masterUrl;
    @ConfigProperty(name = GpuModes.SETTING, defaultValue = "device-plugin")
    String gpuMode;
    @ConfigProperty(name = "horizon.kubernetes.node-pool-label", defaultValue = GpuModes.DEFAULT_POOL_LABEL)
    String poolLabel;
    @ConfigProperty(name = "horizon.kubernetes.gpu-operator.namespace", defaultValue = "gpu-operator")
    String operatorNamespace;
    @ConfigProperty(name = "horizon.kubernetes.gpu-operator.mig-parted-config", defaultValue = "horizon-mig-parted-config")
    String migPartedConfig;
    @ConfigProperty(name = "horizon.kubernetes.gpu-operator.device-plugin-config", defaultValue = "horizon-device-plugin-configs")
    String devicePluginConfig;
    @ConfigProperty(name = "horizon.kubernetes.gpu-operator.mig-timeout-seconds", defaultValue = "900")
    long migTimeoutSeconds;
    @ConfigProperty(name = "horizon.kubernetes.gpu-operator.sharing-timeout-seconds", defaultValue = "300")
    long sharingTimeoutSeconds;

    private KubernetesClient client;
    private GpuModes modes;
    private MigManager mig;
    private DevicePluginSharing sharing;
    private ResourceSlices slices;
    /** What a listed Kubernetes node says that Horizon reads: its labels, and whether it is cordoned (spec.unschedulable). */
    private record Listed(Map<String, String> labels, boolean unschedulable) {
    }

    /** Node name to what it said, as last listed; guarded by this. */
    private Map<String, Listed> listed = Map.of();
    private long listedAt;

    @PostConstruct
    void start() {
        if (!enabled) return;
        modes = GpuModes.parse(gpuMode, poolLabel); // a bad setting stops the start with the line naming it
        Config config = masterUrl.map(url -> new ConfigBuilder().withMasterUrl(url).withTrustCerts(true).build()).orElseGet(() -> Config.autoConfigure(null));
        client = new KubernetesClientBuilder().withConfig(config).build();
        mig = new MigManager(client, new MigManager.Settings(operatorNamespace, migPartedConfig, Duration.ofSeconds(migTimeoutSeconds)));
        sharing = new DevicePluginSharing(client, new DevicePluginSharing.Settings(operatorNamespace, devicePluginConfig,
                Duration.ofSeconds(sharingTimeoutSeconds)));
        slices = new ResourceSlices(client);
        LOG.infof("on Kubernetes at %s: GPU modes %s (pool label %s), GPU Operator objects in namespace %s", client.getMasterUrl(), gpuMode, poolLabel,
                operatorNamespace);
    }

    @PreDestroy
    void stop() {
        if (client != null) client.close();
    }

    public boolean enabled() {
        return enabled;
    }

    /** The node's GPU mode; empty off Kubernetes. A node Kubernetes does not list (yet) takes the mode of nodes in no pool. */
    public Optional<GpuMode> mode(String node) {
        if (!enabled) return Optional.empty();
        return Optional.of(modes.of(labels(node)));
    }

    /** The replicas of the device plugin config the node's nvidia.com/device-plugin.config label names, when it is a sharing one of Horizon's. */
    public Optional<Integer> sharingReplicas(String node) {
        if (!enabled) return Optional.empty();
        Map<String, String> l = labels(node);
        return DevicePluginSharing.NodeSharing.replicasOf(l == null ? null : l.get(DevicePluginSharing.CONFIG_LABEL));
    }

    /**
     * Whether an admin cordoned the node (kubectl cordon or drain: spec.unschedulable). Horizon binds pods itself, and a pod
     * bound to a node passes a cordon by, so the planner must keep new work off such a node itself. False off Kubernetes.
     */
    public boolean cordoned(String node) {
        if (!enabled) return false;
        Listed n = node(node);
        return n != null && n.unschedulable();
    }

    /** Lists the nodes again on the next question: Horizon just changed their labels. */
    public synchronized void forgetLabels() {
        listedAt = 0;
    }

    public MigManager mig() {
        return mig;
    }

    public DevicePluginSharing sharing() {
        return sharing;
    }

    public ResourceSlices slices() {
        return slices;
    }

    private Map<String, String> labels(String node) {
        Listed n = node(node);
        return n == null ? null : n.labels();
    }

    /** What the node said when last listed; listed again when stale, or when the node is new and the last list is a second old. */
    private synchronized Listed node(String node) {
        long now = System.currentTimeMillis();
        long age = now - listedAt;
        if (age < LABELS_FRESH.toMillis() && (listed.containsKey(node) || age < NEW_NODE_RELIST.toMillis())) return listed.get(node);
        try {
            Map<String, Listed> fresh = new HashMap<>();
            for (Node n : client.nodes().list().getItems()) {
                Map<String, String> l = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
                fresh.put(n.getMetadata().getName(), new Listed(l, n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable())));
            }
            listed = fresh;
            listedAt = now;
        } catch (RuntimeException e) {
            LOG.warnf("listing Kubernetes nodes for their GPU modes and cordons failed (%s); using what was listed before", e.getMessage());
        }
        return listed.get(node);
    }
}
