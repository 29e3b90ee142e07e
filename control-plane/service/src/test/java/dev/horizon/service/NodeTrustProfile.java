package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** A store of its own for the node-trust tests: their agents' nodes replace the declared ones in the plan. */
public class NodeTrustProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:node-trust;DB_CLOSE_DELAY=-1");
    }
}
