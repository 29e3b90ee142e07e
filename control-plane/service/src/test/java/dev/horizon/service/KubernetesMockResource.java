package dev.horizon.service;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.MockWebServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.HashMap;
import java.util.Map;

/** The fabric8 mock API server in CRUD mode, started before the control plane, which it is given as horizon.kubernetes.master-url. */
public class KubernetesMockResource implements QuarkusTestResourceLifecycleManager {
    private static KubernetesMockServer server;
    private static KubernetesClient client;

    @Override
    public Map<String, String> start() {
        server = new KubernetesMockServer(new io.fabric8.mockwebserver.Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), true);
        server.init();
        client = server.createClient();
        return Map.of("horizon.kubernetes.enabled", "true", "horizon.kubernetes.master-url", client.getMasterUrl().toString());
    }

    @Override
    public void stop() {
        if (client != null) client.close();
        if (server != null) server.destroy();
    }

    /** A client of the same server, for the test to play the GPU Operator and look at what Horizon wrote. */
    public static KubernetesClient client() {
        return client;
    }
}
