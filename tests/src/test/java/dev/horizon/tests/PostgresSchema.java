package dev.horizon.tests;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A schema of its own in the PostgreSQL database HORIZON_TEST_POSTGRES_URL names (.ci/run sets it), so a test's store
 * starts empty whatever other tests left there; dropped after the test.
 */
record PostgresSchema(String url, String user, String password, String schema) {
    static Optional<PostgresSchema> fromEnvironment(String prefix) {
        String url = System.getenv("HORIZON_TEST_POSTGRES_URL");
        if (url == null || url.isBlank()) return Optional.empty();
        return Optional.of(new PostgresSchema(url, System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_USER", "horizon"),
                System.getenv().getOrDefault("HORIZON_TEST_POSTGRES_PASSWORD", ""), prefix + "_" + UUID.randomUUID().toString().substring(0, 8)));
    }

    /** The control plane's environment for this schema. */
    Map<String, String> env() {
        return Map.of("HORIZON_DB_URL", url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema, "HORIZON_DB_USER", user,
                "HORIZON_DB_PASSWORD", password);
    }

    /** The JVM option that makes Flyway create and migrate the schema. */
    String flywayOption() {
        return "-Dquarkus.flyway.pg.schemas=" + schema;
    }

    void drop() throws Exception {
        try (Connection c = DriverManager.getConnection(url, user, password); PreparedStatement drop = c.prepareStatement("DROP SCHEMA IF EXISTS " + schema
                + " CASCADE")) {
            drop.execute();
        }
    }
}
