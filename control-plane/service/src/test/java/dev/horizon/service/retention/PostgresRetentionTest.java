package dev.horizon.service.retention;

import dev.horizon.service.PostgresProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** Retention's folds and deletes with the store on PostgreSQL. */
@QuarkusTest
@TestProfile(PostgresProfile.class)
@EnabledIfEnvironmentVariable(named = PostgresProfile.URL, matches = ".+", disabledReason = PostgresProfile.SKIPPED)
class PostgresRetentionTest extends RetentionTest {
}
