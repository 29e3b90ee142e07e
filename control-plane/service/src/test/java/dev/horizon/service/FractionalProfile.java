package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** A store of its own for the fractional planning test: its agent node and MIG policy must not reach other tests. */
public class FractionalProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:h2:mem:fractional;DB_CLOSE_DELAY=-1");
    }
}
