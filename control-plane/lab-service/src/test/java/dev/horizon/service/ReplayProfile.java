package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** What `./horizon bench --engine service` runs on: a virtual clock, a store of its own, no declared nodes (the replay declares the scenario's). */
public class ReplayProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:replay;DB_CLOSE_DELAY=-1", "horizon.clock", "virtual", "horizon.nodes", "");
    }
}
