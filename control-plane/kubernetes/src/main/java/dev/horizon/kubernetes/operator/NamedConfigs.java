package dev.horizon.kubernetes.operator;

import dev.horizon.kubernetes.KubernetesRefusal;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The GPU Operator's way of configuring a node: named configs in one ConfigMap, and a node label naming the one the node
 * uses. Shared by the MIG manager (one key holding every mig-parted config) and the device plugin (one key per config).
 * Writes retry when another writer changed the ConfigMap first (HTTP 409).
 */
final class NamedConfigs {
    private static final int ATTEMPTS = 3;

    private final KubernetesClient kube;
    private final String namespace;
    private final String configMap;

    NamedConfigs(KubernetesClient kube, String namespace, String configMap) {
        this.kube = kube;
        this.namespace = namespace;
        this.configMap = configMap;
    }

    String describe() {
        return "ConfigMap " + namespace + "/" + configMap;
    }

    /** The ConfigMap's data, empty when it does not exist. */
    Map<String, String> data() {
        return read().map(ConfigMap::getData).orElse(Map.of());
    }

    /** Rewrites the data (creating the ConfigMap if needed) with edit, which gets the data as it is now. */
    void write(UnaryOperator<Map<String, String>> edit, String why) {
        for (int attempt = 1; ; attempt++) {
            Optional<ConfigMap> existing = read();
            Map<String, String> data = edit.apply(new HashMap<>(existing.map(ConfigMap::getData).orElse(Map.of())));
            try {
                if (existing.isEmpty()) {
                    kube.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(configMap).withNamespace(namespace)
                            .addToLabels("app.kubernetes.io/managed-by", "horizon").endMetadata().withData(data).build()).create();
                } else {
                    ConfigMap updated = existing.get();
                    updated.setData(data);
                    kube.configMaps().inNamespace(namespace).resource(updated).update();
                }
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == ATTEMPTS) throw KubernetesRefusal.of(e, existing.isEmpty() ? "creating" : "updating", describe() + " " + why);
            }
        }
    }

    /** The node's labels. */
    Map<String, String> labels(String node) {
        Node n = node(node);
        return n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    }

    Node node(String node) {
        Node n;
        try {
            n = kube.nodes().withName(node).get();
        } catch (KubernetesClientException e) {
            throw KubernetesRefusal.of(e, "reading", "node " + node);
        }
        if (n == null) throw new IllegalArgumentException("Kubernetes has no node " + node);
        return n;
    }

    /** Sets one label (and removes others) on the node in one change. */
    void label(String node, String key, String value, String... remove) {
        try {
            kube.nodes().withName(node).edit(n -> {
                Map<String, String> labels = n.getMetadata().getLabels() == null ? new HashMap<>() : n.getMetadata().getLabels();
                labels.put(key, value);
                for (String r : remove) labels.remove(r);
                n.getMetadata().setLabels(labels);
                return n;
            });
        } catch (KubernetesClientException e) {
            throw KubernetesRefusal.of(e, "labelling", "node " + node + " with " + key + "=" + value);
        }
    }

    private Optional<ConfigMap> read() {
        try {
            ConfigMap c = kube.configMaps().inNamespace(namespace).withName(configMap).get();
            if (c != null && c.getData() == null) c.setData(new HashMap<>());
            return Optional.ofNullable(c);
        } catch (KubernetesClientException e) {
            throw KubernetesRefusal.of(e, "reading", describe());
        }
    }
}
