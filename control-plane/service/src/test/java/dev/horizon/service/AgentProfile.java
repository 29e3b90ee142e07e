package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * A store of its own for the agent tests: once an agent registers, the planner stops planning on the declared nodes,
 * which the other tests' expectations rely on.
 */
public class AgentProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:agents;DB_CLOSE_DELAY=-1");
    }
}
