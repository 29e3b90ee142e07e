package dev.horizon.service;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** The planner's commit and idempotence with the store on PostgreSQL. */
@QuarkusTest
@TestProfile(PostgresProfile.class)
@EnabledIfEnvironmentVariable(named = PostgresProfile.URL, matches = ".+", disabledReason = PostgresProfile.SKIPPED)
class PostgresPlannerTest extends PlannerTest {
}
