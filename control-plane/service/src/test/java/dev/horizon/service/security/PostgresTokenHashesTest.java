package dev.horizon.service.security;

import dev.horizon.service.PostgresProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** Every TokenHashesTest case with the store on PostgreSQL: the key row and the in-place rewrap of the primary key there. */
@QuarkusTest
@TestProfile(PostgresProfile.class)
@EnabledIfEnvironmentVariable(named = PostgresProfile.URL, matches = ".+", disabledReason = PostgresProfile.SKIPPED)
class PostgresTokenHashesTest extends TokenHashesTest {
}
