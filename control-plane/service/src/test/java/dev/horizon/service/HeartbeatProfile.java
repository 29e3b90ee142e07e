package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** A store of its own (agents' nodes replace the declared ones) and a heartbeat timeout short enough to wait out in a test. */
public class HeartbeatProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:heartbeats;DB_CLOSE_DELAY=-1", "horizon.agents.heartbeat-timeout-seconds", "2");
    }
}
