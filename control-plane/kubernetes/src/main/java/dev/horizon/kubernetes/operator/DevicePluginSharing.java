package dev.horizon.kubernetes.operator;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GPU sharing through the NVIDIA device plugin's named configs: one ConfigMap (ClusterPolicy
 * {@code devicePlugin.config.name}) whose keys are configs, and the node label {@code nvidia.com/device-plugin.config}
 * naming the node's. A config covers every whole GPU of the node ({@code nvidia.com/gpu}); the plugin ignores per-GPU
 * settings (NVIDIA/k8s-device-plugin#404), which is why Horizon plans one replica count per node in this mode. Every config
 * keeps the mixed MIG strategy, so MIG instances stay {@code nvidia.com/mig-<profile>}, and time-slicing refuses a pod
 * asking for more than one replica (it would get slices of one GPU, not several GPUs).
 */
public final class DevicePluginSharing {
    public static final String CONFIG_LABEL = "nvidia.com/device-plugin.config";
    static final String EXCLUSIVE = "horizon-exclusive";
    private static final Pattern NAMED = Pattern.compile("horizon-(?:time-slicing|mps)-(\\d+)");

    /** Where the device plugin's configs are, and how long the plugin may take to advertise a new config. */
    public record Settings(String namespace, String configMap, Duration timeout) {
    }

    /** How every whole GPU of a node is shared: TIME_SLICING or MPS with replicas per GPU; replicas 1 is not shared. */
    public record NodeSharing(String mode, int replicas) {
        public NodeSharing {
            if (!mode.equals("TIME_SLICING") && !mode.equals("MPS")) throw new IllegalArgumentException("sharing mode " + mode + ": use TIME_SLICING or MPS");
            if (replicas < 1) throw new IllegalArgumentException("replicas must be at least 1 (got " + replicas + ")");
        }

        /** The config's key in the ConfigMap and value of the node label. */
        public String name() {
            return replicas == 1 ? EXCLUSIVE : "horizon-" + (mode.equals("MPS") ? "mps" : "time-slicing") + "-" + replicas;
        }

        /** The replicas of a sharing config of Horizon's named thus; empty for any other name (exclusive, someone else's, none). */
        public static Optional<Integer> replicasOf(String configName) {
            Matcher m = NAMED.matcher(configName == null ? "" : configName);
            return m.matches() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
        }

        String yaml() {
            String head = "version: v1\nflags:\n  migStrategy: mixed\n";
            if (replicas == 1) return head;
            String resources = "    resources:\n      - name: nvidia.com/gpu\n        replicas: " + replicas + "\n";
            return head + (mode.equals("MPS") ? "sharing:\n  mps:\n" + resources
                    : "sharing:\n  timeSlicing:\n    failRequestsGreaterThanOne: true\n" + resources);
        }
    }

    private final Settings settings;
    private final NamedConfigs configs;

    public DevicePluginSharing(KubernetesClient kube, Settings settings) {
        this.settings = settings;
        this.configs = new NamedConfigs(kube, settings.namespace(), settings.configMap());
    }

    /** Writes the node's config (once per name) and points its label at it; returns the name. */
    public String apply(String node, NodeSharing sharing) {
        String name = sharing.name();
        if (!sharing.yaml().equals(configs.data().get(name))) {
            configs.write(data -> {
                data.put(name, sharing.yaml());
                return data;
            }, "for node " + node);
        }
        configs.label(node, CONFIG_LABEL, name);
        return name;
    }

    /**
     * Applied once the node's label names the config and the plugin advertises it: allocatable {@code nvidia.com/gpu} is the
     * node's whole GPUs times the replicas.
     */
    public Progress progress(String node, NodeSharing sharing, int wholeGpus, Duration waited) {
        var n = configs.node(node);
        String label = n.getMetadata().getLabels() == null ? null : n.getMetadata().getLabels().get(CONFIG_LABEL);
        if (!sharing.name().equals(label)) {
            return new Progress.Failed(CONFIG_LABEL + " on node " + node + " is now '" + label + "', not Horizon's " + sharing.name()
                    + ": someone else changed it, so the sharing was not applied");
        }
        Map<String, Quantity> allocatable = n.getStatus() == null || n.getStatus().getAllocatable() == null ? Map.of() : n.getStatus().getAllocatable();
        long want = (long) wholeGpus * sharing.replicas();
        Quantity have = allocatable.get("nvidia.com/gpu");
        if (have != null && Quantity.getAmountInBytes(have).longValue() == want) return new Progress.Applied();
        String shown = have == null ? "none" : have.toString();
        if (waited.compareTo(settings.timeout()) >= 0) {
            return new Progress.Failed("the device plugin on node " + node + " advertises " + shown + " nvidia.com/gpu " + waited.toSeconds()
                    + " s after Horizon set config " + sharing.name() + ", not " + want + " (" + wholeGpus + " GPUs x " + sharing.replicas()
                    + "); its log says why: kubectl logs -n " + settings.namespace() + " -l app=nvidia-device-plugin-daemonset");
        }
        return new Progress.Waiting("the device plugin advertises " + shown + " nvidia.com/gpu, " + want + " expected");
    }
}
