package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** The store on PostgreSQL instead of H2, from HORIZON_TEST_POSTGRES_URL / _USER / _PASSWORD (.ci/run sets them). */
public class PostgresProfile implements QuarkusTestProfile {
    public static final String URL = "HORIZON_TEST_POSTGRES_URL";
    public static final String SKIPPED = "PostgreSQL store tests skipped: set HORIZON_TEST_POSTGRES_URL (and _USER, _PASSWORD), as .ci/run does";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.datasource.active", "false", "quarkus.datasource.pg.active", "true",
                // JUnit discovery reads the overrides even when the tests are disabled, so an unset URL must not fail there
                "quarkus.datasource.pg.jdbc.url", System.getenv().getOrDefault(URL, "jdbc:postgresql://127.0.0.1:5432/horizon_test"),
                "quarkus.datasource.pg.username", System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_USER", "horizon"),
                "quarkus.datasource.pg.password", System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_PASSWORD", ""));
    }
}
