package dev.horizon.service.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Switches the store from the embedded H2 file to PostgreSQL when HORIZON_DB_URL (a jdbc:postgresql URL; the launcher's
 * --db-url sets it) is set, so an operator sets one variable plus credentials instead of flipping Quarkus's
 * per-datasource switches by hand. Credentials come from HORIZON_DB_USER and HORIZON_DB_PASSWORD, or
 * HORIZON_DB_PASSWORD_FILE (a mounted secret). The older HORIZON_POSTGRES_URL/_USER/_PASSWORD still work where the
 * new names are unset. The datasource kinds are fixed at build time, so both are built in and this chooses which is active.
 */
public class DatabaseSelection implements ConfigSource {
    private final Map<String, String> properties = new HashMap<>();

    public DatabaseSelection() {
        this(System.getenv());
    }

    DatabaseSelection(Map<String, String> env) {
        String url = either(env, "HORIZON_DB_URL", "HORIZON_POSTGRES_URL");
        if (url == null) return;
        if (!url.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("HORIZON_DB_URL (--db-url) must be a PostgreSQL JDBC URL such as"
                    + " jdbc:postgresql://HOST:5432/horizon (got '" + url + "'); leave it unset for the embedded H2 file");
        }
        String user = either(env, "HORIZON_DB_USER", "HORIZON_POSTGRES_USER");
        properties.put("quarkus.datasource.active", "false");
        properties.put("quarkus.datasource.pg.active", "true");
        properties.put("quarkus.datasource.pg.jdbc.url", url);
        properties.put("quarkus.datasource.pg.username", user == null ? "horizon" : user);
        properties.put("quarkus.datasource.pg.password", password(env));
    }

    private static String password(Map<String, String> env) {
        String file = value(env, "HORIZON_DB_PASSWORD_FILE");
        String direct = either(env, "HORIZON_DB_PASSWORD", "HORIZON_POSTGRES_PASSWORD");
        if (file == null) return direct == null ? "" : direct;
        if (direct != null) throw new IllegalArgumentException("set HORIZON_DB_PASSWORD or HORIZON_DB_PASSWORD_FILE, not both");
        try {
            // a secret file usually ends with a newline that is not part of the password
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException("HORIZON_DB_PASSWORD_FILE: cannot read '" + file + "' (" + e.getMessage()
                    + "); point it at a readable file holding only the password", e);
        }
    }

    private static String either(Map<String, String> env, String name, String alias) {
        String v = value(env, name);
        return v != null ? v : value(env, alias);
    }

    private static String value(Map<String, String> env, String name) {
        String v = env.get(name);
        return v == null || v.isBlank() ? null : v.strip();
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
        return "horizon-database-selection";
    }

    /** Above application.properties (250), below explicit environment variables and system properties. */
    @Override
    public int getOrdinal() {
        return 275;
    }
}
