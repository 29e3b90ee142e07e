package dev.horizon.tests;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Map;

/** The hostile-input corpus on PostgreSQL (HORIZON_TEST_POSTGRES_URL, a schema of its own); skipped without one. */
class HostileInputPostgresIT extends HostileInput {
    private PostgresSchema schema;

    @Override
    Map<String, String> store(Path dir) {
        schema = PostgresSchema.fromEnvironment("hostile_it").orElse(null);
        assumeTrue(schema != null, "PostgreSQL run skipped: set HORIZON_TEST_POSTGRES_URL (and _USER, _PASSWORD), as .ci/run does");
        return schema.env();
    }

    @Override
    String[] storeOptions() {
        return new String[] {schema.flywayOption()};
    }

    @Override
    void dropStore() throws Exception {
        if (schema != null) schema.drop();
    }
}
