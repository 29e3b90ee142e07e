package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * A store of its own on a virtual clock: time moves only when a test moves it, and plans run only when a test asks, so a
 * test can replay minutes of a cluster in milliseconds and know exactly which plan did what. Two models: node-0 has
 * 8 H100s, node-1 8 A100s. Start-time bands are on (the other profiles leave them off), their futures played two at once,
 * so the service's tests of bands go through the pool a control plane with cores to spare uses.
 */
public class VirtualClockProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:virtual;DB_CLOSE_DELAY=-1", "horizon.clock", "virtual",
                "horizon.nodes", "8xH100-80GB,8xA100-80GB", "horizon.eta.enabled", "true", "horizon.eta.threads", "2",
                "horizon.leader.lease-seconds", "4", "horizon.leader.renew-seconds", "1");
    }
}
