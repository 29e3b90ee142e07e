package dev.horizon.service.store;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Switches the store from the embedded H2 file to PostgreSQL when HORIZON_POSTGRES_URL is set, so an
 * operator sets one variable (plus HORIZON_POSTGRES_USER and HORIZON_POSTGRES_PASSWORD) instead of
 * flipping Quarkus's per-datasource switches by hand. The datasource kinds are fixed at build time,
 * so both are built in and this chooses which is active.
 */
public class PostgresSelection implements ConfigSource {
    private final Map<String, String> properties = new HashMap<>();

    public PostgresSelection() {
        String url = System.getenv("HORIZON_POSTGRES_URL");
        if (url == null || url.isBlank()) return;
        properties.put("quarkus.datasource.active", "false");
        properties.put("quarkus.datasource.pg.active", "true");
        properties.put("quarkus.datasource.pg.jdbc.url", url);
        properties.put("quarkus.datasource.pg.username", System.getenv().getOrDefault("HORIZON_POSTGRES_USER", "horizon"));
        properties.put("quarkus.datasource.pg.password", System.getenv().getOrDefault("HORIZON_POSTGRES_PASSWORD", ""));
    }

    @Override
    public Map<String, String> getProperties() {
        return properties;
    }

    @Override
    public Set<String> getPropertyNames() {
        return properties.keySet();
    }

    @Override
    public String getValue(String name) {
        return properties.get(name);
    }

    @Override
    public String getName() {
        return "horizon-postgres-selection";
    }

    /** Above application.properties (250), below explicit environment variables and system properties. */
    @Override
    public int getOrdinal() {
        return 275;
    }
}
