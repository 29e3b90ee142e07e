package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.List;
import java.util.Map;

/**
 * The control plane on Kubernetes (the fabric8 mock API server), with a store of its own; nodes in pool h200-dra are in dra
 * mode, the others in device-plugin mode. The GPU Operator commands and the ResourceSlice check run when the test calls
 * them, not on their timers, so each step is the test's.
 */
public class KubernetesProfile implements QuarkusTestProfile {
    /** The store's name and the horizon.kubernetes.gpu-mode setting. */
    protected String[] storeAndModes() {
        return new String[] {"kubernetes", "device-plugin,h200-dra=dra"};
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        String[] given = storeAndModes();
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:" + given[0] + ";DB_CLOSE_DELAY=-1", "horizon.kubernetes.gpu-operator.poll", "1h",
                "horizon.kubernetes.inventory-check", "1h", "horizon.kubernetes.gpu-mode", given[1]);
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(KubernetesMockResource.class));
    }

    /** The same modes in a store of its own. */
    public static class OwnStore extends KubernetesProfile {
        @Override
        protected String[] storeAndModes() {
            return new String[] {"dra", super.storeAndModes()[1]};
        }
    }
}
