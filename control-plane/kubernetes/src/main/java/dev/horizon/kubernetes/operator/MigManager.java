package dev.horizon.kubernetes.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * MIG layouts through the GPU Operator's MIG manager, which applies the mig-parted config a node's
 * {@code nvidia.com/mig.config} label names and reports in {@code nvidia.com/mig.config.state} (pending, rebooting,
 * success, failed). Horizon keeps its named layouts in the mig-parted ConfigMap the MIG manager reads (ClusterPolicy
 * {@code migManager.config.name}), points the node's label at one, and removes the stale state label in the same change, so
 * the state it reads afterwards is the MIG manager's answer to this layout and not to the one before.
 */
public final class MigManager {
    public static final String CONFIG_LABEL = "nvidia.com/mig.config";
    public static final String STATE_LABEL = "nvidia.com/mig.config.state";
    public static final String CONFIG_KEY = "config.yaml";

    /** Where the MIG manager's ConfigMap is, and how long a layout may stay pending before it counts as stuck. */
    public record Settings(String namespace, String configMap, Duration timeout) {
    }

    private final KubernetesClient kube;
    private final Settings settings;
    private final NamedConfigs configs;

    public MigManager(KubernetesClient kube, Settings settings) {
        this.kube = kube;
        this.settings = settings;
        this.configs = new NamedConfigs(kube, settings.namespace(), settings.configMap());
    }

    /**
     * The layout the node's label names, when it is one of Horizon's and did not fail, so a change builds on one not yet
     * applied; after a failure the GPUs are as the agent reports them, not as the failed layout says.
     */
    public Optional<MigLayoutConfig> current(String node) {
        Map<String, String> labels = configs.labels(node);
        String name = labels.get(CONFIG_LABEL);
        if (name == null || "failed".equals(labels.get(STATE_LABEL))) return Optional.empty();
        return MigPartedFile.parse(configs.data().get(CONFIG_KEY)).layout(name);
    }

    /**
     * Writes the layout into the ConfigMap and points the node's label at it; returns the name the label holds. A layout the
     * node already has (state success) changes nothing. The MIG manager acts only when the label changes, so a layout asked
     * for again after it failed goes under a second name (its name with "-b", or without it if the label has that one).
     */
    public String apply(String node, MigLayoutConfig layout) {
        Map<String, String> labels = configs.labels(node);
        String current = labels.get(CONFIG_LABEL);
        String name = layout.name();
        if (current != null && current.startsWith(name)) {
            if (current.equals(name) && "success".equals(labels.get(STATE_LABEL))) return name;
            if (current.equals(name)) name = name + "-b";
        }
        String chosen = name;
        configs.write(data -> {
            MigPartedFile file = MigPartedFile.parse(data.get(CONFIG_KEY));
            file.put(chosen, layout);
            Set<String> inUse = inUse();
            inUse.add(chosen);
            file.prune(inUse);
            data.put(CONFIG_KEY, file.render());
            return data;
        }, "for node " + node);
        configs.label(node, CONFIG_LABEL, chosen, STATE_LABEL);
        return chosen;
    }

    /**
     * Where the MIG manager is with one GPU's layout (counts of each profile; null for MIG off) on node, waited for since
     * it was asked: the node's label must name a Horizon layout that holds it (a later change of another GPU still does),
     * and the state label says the rest.
     */
    public Progress progress(String node, int gpu, Map<String, Integer> counts, Duration waited) {
        Map<String, String> labels = configs.labels(node);
        String name = labels.get(CONFIG_LABEL);
        Optional<MigLayoutConfig> layout = name == null ? Optional.empty() : MigPartedFile.parse(configs.data().get(CONFIG_KEY)).layout(name);
        Map<String, Integer> wanted = counts == null || counts.isEmpty() ? null : new TreeMap<>(counts);
        if (layout.isEmpty() || !Objects.equals(layout.get().gpus().get(gpu), wanted)) {
            return new Progress.Failed(CONFIG_LABEL + " on node " + node + " is now '" + name + "', which does not hold Horizon's layout for GPU "
                    + gpu + ": someone else changed it, so the layout was not applied");
        }
        String state = labels.get(STATE_LABEL);
        if ("success".equals(state)) return new Progress.Applied();
        if ("failed".equals(state)) {
            return new Progress.Failed("the GPU Operator's MIG manager reported " + STATE_LABEL + "=failed for layout " + name + " on node " + node
                    + " (its log says why: kubectl logs -n " + settings.namespace() + " -l app=nvidia-mig-manager)");
        }
        String shown = state == null ? "not set yet" : "'" + state + "'";
        if (waited.compareTo(settings.timeout()) >= 0) {
            return new Progress.Failed("stuck: " + STATE_LABEL + " on node " + node + " is still " + shown + " " + waited.toSeconds()
                    + " s after Horizon asked for layout " + name + " (limit " + settings.timeout().toSeconds() + " s); is the MIG manager running there?");
        }
        return new Progress.Waiting(state == null ? "not started" : state);
    }

    /** Horizon layouts some node's label names now. */
    private Set<String> inUse() {
        Set<String> names = new HashSet<>();
        for (Node n : kube.nodes().withLabel(CONFIG_LABEL).list().getItems()) {
            String name = n.getMetadata().getLabels().get(CONFIG_LABEL);
            if (name.startsWith(MigLayoutConfig.PREFIX)) names.add(name);
        }
        return names;
    }
}
