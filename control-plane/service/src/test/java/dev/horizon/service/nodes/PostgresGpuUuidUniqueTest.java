package dev.horizon.service.nodes;

import dev.horizon.service.PostgresProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** Every GpuUuidUniqueTest case with the store on PostgreSQL, where a racing insert waits for the winner's commit. */
@QuarkusTest
@TestProfile(PostgresProfile.class)
@EnabledIfEnvironmentVariable(named = PostgresProfile.URL, matches = ".+", disabledReason = PostgresProfile.SKIPPED)
class PostgresGpuUuidUniqueTest extends GpuUuidUniqueTest {
}
